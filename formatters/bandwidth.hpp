#pragma once

#include <string>

#include "formatters/printer.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::formatters {

void render_bw(const report::BwReport& r, Printer& p);
// The live line on a terminal: "size 65536: 3.0 s, 10.52 Gb/s".
std::string bw_progress_line(std::uint32_t size, double seconds, double bytes_per_s, const std::string& unit);

}  // namespace qps::formatters
