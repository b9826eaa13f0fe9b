// Who uses a kernel QP or rdma_cm ID: the consumer RDMA netlink names (a
// kernel module such as `nvme_rdma`, or a process), and where sysfs or
// procfs names the consumer's own object that talks to the same remote
// address, that object: an NVMe-oF controller, an NFS mount over RDMA, an
// iSCSI session over iSER. One join for `qp list`, `qp query` and `cm list`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/consumers.hpp"
#include "src/kernel/rdma_netlink.hpp"

namespace qps::report {

// The kernel consumers' objects of this host, read once.
struct ConsumerObjects {
    std::vector<kernel::NvmeController> nvme;
    std::vector<kernel::NfsMount> nfs;
    std::vector<kernel::IscsiConnection> iscsi;
};
ConsumerObjects read_consumer_objects();

// The objects of `owner` (nvme_rdma: NVMe-oF controllers over RDMA;
// rpcrdma: NFS mounts over RDMA; ib_iser: iSCSI sessions) whose target is
// `remote` ("192.0.2.2:4420", "[fe80::2]:4420").
struct ServedObjects {
    std::string names;   // "nvme0"; several: "nvme0, nvme1"; "" for none
    std::string state;   // the first's: "live", "mounted", "LOGGED_IN", ...
    std::string target;  // the first's: a subsystem NQN, an export, an IQN
};
ServedObjects served_by(const std::string& owner, const std::string& remote, const ConsumerObjects& objects);

// A QP's consumer, from its rdma_cm ID (the same device and QPN): a kernel
// QP's owner is `rdma_cm`, its ID's is the consumer (`nvme_rdma`,
// `rpcrdma`, `ib_iser`, ...), with the addresses it talks between.
struct QpConsumer {
    std::string owner;  // the ID's owner: a kernel module, or a process's name (bytes from outside)
    std::string local, remote;
    decode::Decoded cm_state;
    std::string serves;         // ServedObjects::names
    std::string serves_state;   // ServedObjects::state
    std::string serves_target;  // ServedObjects::target
};

// The rdma_cm IDs indexed by (device, QPN), so that each QP's look-up costs
// one search whatever the number of QPs.
// What the consumers serve is read once a QP has an ID (a host with none
// never reads /sys/class/nvme, /proc/mounts or the iSCSI sessions).
class ConsumerIndex {
public:
    ConsumerIndex(const std::vector<kernel::KernelCmId>& ids, ConsumerObjects objects);
    // `read` called at the first QP that has an ID.
    ConsumerIndex(const std::vector<kernel::KernelCmId>& ids, std::function<ConsumerObjects()> read);
    // nullopt: no ID of that QP.
    std::optional<QpConsumer> of(const kernel::KernelQp& q) const;
    const ConsumerObjects& objects() const;

private:
    std::map<std::pair<std::string, std::uint32_t>, const kernel::KernelCmId*> by_qp_;
    std::function<ConsumerObjects()> read_;
    mutable std::optional<ConsumerObjects> objects_;
};

}  // namespace qps::report
