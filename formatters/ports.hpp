#pragma once

#include "formatters/printer.hpp"
#include "src/report/ports.hpp"

namespace qps::formatters {

// Lays out the `ports` report; field names here are the JSON contract
// documented in man/qpscope-ports.1.
void render_ports(const report::PortsReport& report, Printer& p);

}  // namespace qps::formatters
