// Stuck QPs of any process, from the kernel's view (RDMA netlink): a QP
// whose process may wait on it forever because it is in ERR or SQE, or
// because its destination QP is gone and its PSNs stopped moving. `qp list`
// (notes, --stalled) and `doctor` (qp.stuck findings) read the same
// verdicts. Pure functions of one or two samples; unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/health/finding.hpp"
#include "src/kernel/rdma_netlink.hpp"

namespace qps::health {

struct QpVerdict {
    kernel::KernelQp qp;           // as in the last sample
    bool error_state = false;      // ERR or SQE
    bool dest_missing = false;     // RC/UC in RTR/RTS whose destination QPN is on no local device
    bool no_progress = false;      // RTS, both PSNs unchanged over the interval (needs two samples)
    bool stuck = false;            // error_state, or dest_missing and no_progress
    std::vector<std::string> notes;  // plain words, one per fact above
};

// One verdict per user QP (kernel QPs such as the GSI QP are left out) of
// `after`. `before` (nullopt: one sample only) is the earlier sample,
// `interval_s` apart.
std::vector<QpVerdict> judge_qps(const std::vector<kernel::KernelQp>& after,
                                 const std::optional<std::vector<kernel::KernelQp>>& before, double interval_s);

// id "qp.stuck" (warn) for each stuck QP with its owner, and one "qp.summary"
// (ok) counting what was looked at.
std::vector<Finding> qp_findings(const std::vector<QpVerdict>& verdicts, double interval_s);

}  // namespace qps::health
