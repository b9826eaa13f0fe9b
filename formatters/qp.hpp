// Layouts of the `qp` commands' reports.
#pragma once

#include <vector>

#include "formatters/printer.hpp"
#include "src/health/stuck.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/ops/qp_session.hpp"
#include "src/report/qp.hpp"

namespace qps::fmt_out {

void render_qp(const report::QpReport& qp, Printer& p);
void render_create(const qp::CreateOutcome& outcome, Printer& p);
void render_modify(const qp::ModifyOutcome& outcome, Printer& p);
void render_post(const qp::PostOutcome& outcome, Printer& p);
void render_destroy(const qp::DestroyOutcome& outcome, Printer& p);
// What `qp list` says beyond its table, from health/stuck.hpp.
struct QpListNotes {
    std::vector<health::QpVerdict> verdicts;  // the QPs to say something about, in table order
    std::optional<double> stalled_s;          // --stalled: the sampling interval
    std::size_t dest_missing = 0;             // without --stalled: connected QPs whose destination is not local
    std::vector<health::Finding> port_counters;  // --stalled: the counters of ports with a stuck QP
};
// The kernel's view of QPs (any process); `held` marks those this user's holder holds.
void render_kernel_qps(const std::vector<kernel::KernelQp>& qps, const std::vector<std::uint32_t>& held, Printer& p,
                       const QpListNotes& notes = {});
// One QP; `verdict` adds what health/stuck.hpp says of it.
void render_kernel_qp(const kernel::KernelQp& qp, Printer& p, const health::QpVerdict* verdict = nullptr);

}  // namespace qps::fmt_out
