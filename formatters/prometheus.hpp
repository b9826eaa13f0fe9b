// Metrics in the Prometheus text exposition format (version 0.0.4), as
// node_exporter's textfile collector reads it: one HELP and one TYPE line
// per metric family, samples labelled (by device and port for the ports
// report), no timestamps. What the families are is src/report/metrics.hpp's;
// metric names are documented in man/qpscope-ports.1.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "src/report/metrics.hpp"
#include "src/report/ports.hpp"

namespace qps::formatters {

void render_metrics_text(const report::MetricSet& set, std::ostream& out);
// `ports --format prometheus`: report::add_ports_metrics, written out.
void render_ports_prometheus(const report::PortsReport& report, std::ostream& out);

// A label value between double quotes: backslash, double quote and line
// feed escaped.
std::string prometheus_label_value(std::string_view value);
// HELP text: backslash and line feed escaped.
std::string prometheus_help_text(std::string_view text);

}  // namespace qps::formatters
