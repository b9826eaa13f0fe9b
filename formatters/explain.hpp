// Layout of `qpscope explain`: each value with its name, facts and what to
// check; for --log, each line with what was found in it, and the lines
// nothing was found in.
#pragma once

#include <vector>

#include "formatters/printer.hpp"
#include "src/explain/log.hpp"
#include "src/explain/topics.hpp"

namespace qps::formatters {

void render_explanations(const std::vector<explain::Explanation>& all, Printer& p);
void render_explain_log(const explain::LogReport& r, Printer& p);
// The topics with what each is and what a value may be (`explain --list`).
void render_explain_topics(Printer& p);

}  // namespace qps::formatters
