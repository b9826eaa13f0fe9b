// Layouts of the `qp` commands' reports.
#pragma once

#include <vector>

#include "formatters/printer.hpp"
#include "src/health/stuck.hpp"
#include "src/ops/qp_list.hpp"
#include "src/ops/qp_session.hpp"
#include "src/report/qp.hpp"

namespace qps::formatters {

void render_qp(const report::QpReport& qp, Printer& p);
// The asynchronous events the holder read for a QP or an SRQ ("events").
void render_held_events(const std::vector<report::HeldEventReport>& events, Printer& p);
void render_create(const ops::CreateOutcome& outcome, Printer& p);
void render_modify(const ops::ModifyOutcome& outcome, Printer& p);
void render_post(const ops::PostOutcome& outcome, Printer& p);
void render_destroy(const ops::DestroyOutcome& outcome, Printer& p);
// `qp list`: the kernel's view of QPs (any process), those this user's
// holder holds marked, and what health/stuck.hpp says of some.
void render_kernel_qps(const ops::QpListing& listing, Printer& p);
// One QP of the kernel's view; `verdict` adds what health/stuck.hpp says of it.
void render_kernel_qp(const report::KernelQpReport& qp, Printer& p, const health::QpVerdict* verdict = nullptr);
// `qp query` of a QP this user's holder does not hold.
void render_kernel_qp_view(const ops::KernelQpView& view, Printer& p);

}  // namespace qps::formatters
