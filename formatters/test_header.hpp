#pragma once

#include "formatters/printer.hpp"
#include "src/report/test_header.hpp"

namespace qps::fmt_out {

// The fields every two-sided test shows first (inside its "test" object).
void render_test_header(const report::TestHeader& h, Printer& p);
// How long each size runs: the duration, or the iterations (`what` names them).
void render_test_length(const report::TestHeader& h, Printer& p, std::string_view what);

}  // namespace qps::fmt_out
