// `watch --top`'s screen as lines of text: a title, each port's state and
// packet rates, the busiest QPs with owner and state, and the last records
// (watch_line's text), cut to the screen's width and height. Pure (tested
// on the host); formatters/top_screen.hpp draws the lines.
#pragma once

#include <string>
#include <vector>

#include "src/watch/top.hpp"

namespace qps::formatters {

// `now`: the title's time of day. Every line at most `width` bytes (bytes
// from outside escaped to ASCII first); at most `height` lines: the QP list
// gets what the ports and a few events leave.
std::vector<std::string> top_lines(const watch::TopModel& model, const std::string& now, int width, int height);

}  // namespace qps::formatters
