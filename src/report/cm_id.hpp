// The host's rdma_cm IDs as the kernel reports them (RDMA netlink: any
// process's, and those of kernel users such as NVMe-oF or NFS over RDMA),
// each decoded once for `cm list`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/report/consumer.hpp"

namespace qps::report {

struct CmIdReport {
    std::optional<std::string> device;  // nullopt: not bound to a device yet
    std::optional<std::uint32_t> port;  // nullopt: no port (a listener on every port of its device, or before its route)
    std::optional<std::uint32_t> id;    // the kernel's number for it (`rdma resource show cm_id cm-idn N`)
    decode::Decoded state;              // enum rdma_cm_state (src/decode/cm_state.hpp)
    std::string phase;                  // what the state means: listening, connecting, connected, closing, bound, idle
    decode::Decoded port_space;         // RDMA_PS_TCP, ...
    std::optional<std::string> local, remote;  // "192.0.2.1:18515", "[fe80::1]:4791"
    std::optional<std::uint32_t> qpn;   // its QP, once it has one
    std::optional<std::uint32_t> pid;   // nullopt for a kernel user's ID
    std::string comm;  // the owner's name (a process's, or a kernel module's): bytes from outside
    // A kernel consumer's object that talks to `remote` (an NVMe-oF
    // controller, an NFS mount, an iSCSI session), where sysfs names it.
    ServedObjects serves;
};

CmIdReport cm_id_report(const kernel::KernelCmId& c, const ConsumerObjects& objects = {});

// `cm list`: the IDs kept by the filters, in the kernel's order (device by
// device), and how many the host has in all.
struct CmListReport {
    std::vector<CmIdReport> ids;
    std::size_t host_total = 0;
    bool filtered = false;  // a filter was given (an empty list then says "none matches")
    bool nested_pid_ns = false;  // pids only of this PID namespace's processes (host/pid_namespace.hpp)
};

}  // namespace qps::report
