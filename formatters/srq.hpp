// `qp srq create|query|modify|destroy` laid out.
#pragma once

#include "formatters/printer.hpp"
#include "src/ops/srq_session.hpp"
#include "src/report/srq.hpp"

namespace qps::formatters {

void render_srq(const report::SrqReport& srq, Printer& p);
void render_xrcd(const ops::XrcdOutcome& xrcd, Printer& p);
void render_srq_destroy(const ops::SrqDestroyOutcome& outcome, Printer& p);

}  // namespace qps::formatters
