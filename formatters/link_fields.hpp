#pragma once

#include "formatters/printer.hpp"
#include "src/report/link_header.hpp"

namespace qps::formatters {

// The fields every two-sided test shows first (inside its "test" object).
void render_link_header(const report::LinkHeader& h, Printer& p);
// The threads (`label` says what one is) and the CPUs they are pinned to.
void render_link_threads(const report::LinkHeader& h, Printer& p, std::string_view label);
// How long each size runs: the duration, or the iterations (`what` names them).
void render_link_length(const report::LinkHeader& h, Printer& p, std::string_view what);

}  // namespace qps::formatters
