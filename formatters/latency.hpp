#pragma once

#include "formatters/printer.hpp"
#include "src/report/latency.hpp"

namespace qps::formatters {

void render_ping_pong(const report::PingPongReport& r, Printer& p);
// One line for the progress display on a terminal.
std::string progress_line(const report::SizeResult& s);

}  // namespace qps::formatters
