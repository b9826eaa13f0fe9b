// doctor's port.loopback finding: the self-test of one port (src/ops/
// loopback) run with doctor's options (by hand or through rdma_cm, the QP
// options) and judged: ok with its figures, or failed with what explains
// it (the port's RoCE GID finding, rdma_cm's device file, the P_Key table).
#pragma once

#include <string>

#include "src/finding.hpp"
#include "src/ops/doctor.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::ops {

// The port the self-test runs on, as doctor's snapshot has it.
struct LoopbackPort {
    const std::string& device;
    const verbs::PortSnapshot& snap;
    const std::string& netdev;  // "" when none
    verbs::SharedDevice opened; // the snapshot's context: the self-test's QPs use it
    bool ethernet = false;
};

// `roce_gid`, `rdma_cm`: the port's port.roce_gid and the host's
// device.rdma_cm findings (null when absent), which may explain a failure.
Finding loopback_finding(const LoopbackPort& port, const Finding* roce_gid, const Finding* rdma_cm,
                         const DoctorOptions& o);

}  // namespace qps::ops
