// One QP of the kernel's view (RDMA netlink: any process's QPs), decoded
// once for `qp list` and `qp query`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/consumers.hpp"
#include "src/kernel/rdma_netlink.hpp"

namespace qps::report {

// Who uses a QP through rdma_cm, from its rdma_cm ID (the same device and
// QPN): a kernel QP's owner is `rdma_cm`, its ID's is the consumer
// (`nvme_rdma`, `rpcrdma`, `ib_iser`, ...), with the addresses it talks
// between; and where sysfs names the consumer's own object, that object
// (an NVMe-oF controller: its name, state and subsystem).
struct QpConsumer {
    std::string owner;       // the ID's owner: a kernel module, or a process's name (bytes from outside)
    std::string local, remote;
    decode::Decoded cm_state;
    std::string serves;        // "nvme0"; "" when sysfs names no object (several: "nvme0, nvme1")
    std::string serves_state;  // "live", "resetting", ... (the first's)
    std::string serves_target; // the subsystem's NQN
};

// The consumer of `q`: its rdma_cm ID among `ids`, and an NVMe-oF
// controller over RDMA among `controllers` whose target (traddr, trsvcid)
// is the ID's remote address. nullopt: no ID of that QP.
std::optional<QpConsumer> qp_consumer(const kernel::KernelQp& q, const std::vector<kernel::KernelCmId>& ids,
                                      const std::vector<kernel::NvmeController>& controllers);

struct KernelQpReport {
    std::string device;
    std::optional<std::uint32_t> port;  // nullopt while the QP has no port (before RESET→INIT)
    std::uint32_t qpn = 0;
    decode::Decoded type;   // the kernel's ib_qp_type (SMI and GSI too)
    decode::Decoded state;
    std::optional<std::uint32_t> dest_qpn, sq_psn, rq_psn, pdn, pid;
    std::optional<decode::Decoded> mig_state;
    std::string comm;  // the owner's name (a process's, or a kernel module's): bytes from outside
    std::vector<std::pair<std::string, std::string>> driver;
    bool held = false;  // this user's holder holds it
    std::optional<QpConsumer> consumer;
};

KernelQpReport kernel_qp_report(const kernel::KernelQp& q, bool held = false);

}  // namespace qps::report
