// Layout of `qpscope path`: both sides, the round trip, each direction's
// sweep and burst, the findings, both sides' counters, the verdict; and
// the one-line-per-problem form of --quiet.
#pragma once

#include <string>
#include <vector>

#include "formatters/printer.hpp"
#include "src/ops/path.hpp"

namespace qps::formatters {

void render_path(const ops::PathReport& r, Printer& p);
// --quiet: "WARN path.loss: here -> 192.0.2.2: 2.0 % loss ...; fix: ..." for
// each finding that warns or fails; none on a healthy path.
std::vector<std::string> path_problem_lines(const ops::PathReport& r);

}  // namespace qps::formatters
