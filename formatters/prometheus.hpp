// The ports report in the Prometheus text exposition format (version
// 0.0.4), as node_exporter's textfile collector reads it: one HELP and one
// TYPE line per metric family, samples labelled by device and port, no
// timestamps. Metric names are documented in man/qpscope-ports.1.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "src/report/ports.hpp"

namespace qps::formatters {

void render_ports_prometheus(const report::PortsReport& report, std::ostream& out);

// A counter file name as part of a metric name: ASCII letters lower-cased,
// digits kept, anything else '_' ("rx-Pkts.1" -> "rx_pkts_1").
std::string prometheus_name_part(std::string_view raw);
// A label value between double quotes: backslash, double quote and line
// feed escaped.
std::string prometheus_label_value(std::string_view value);
// HELP text: backslash and line feed escaped.
std::string prometheus_help_text(std::string_view text);

}  // namespace qps::formatters
