// One QP of the kernel's view (RDMA netlink: any process's QPs), decoded
// once for `qp list` and `qp query`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/report/consumer.hpp"

namespace qps::report {

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
