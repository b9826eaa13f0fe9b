#include "formatters/prometheus.hpp"

#include <ostream>

#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

std::string prometheus_label_value(std::string_view value)
{
    std::string s;
    s.reserve(value.size());
    // The exposition format is UTF-8: bytes from outside (a device name) as in JSON.
    for (const char ch : util::to_utf8(value)) {
        switch (ch) {
        case '\\': s += "\\\\"; break;
        case '"': s += "\\\""; break;
        case '\n': s += "\\n"; break;
        default: s += ch;
        }
    }
    return s;
}

std::string prometheus_help_text(std::string_view text)
{
    std::string s;
    s.reserve(text.size());
    for (const char ch : util::to_utf8(text)) {
        switch (ch) {
        case '\\': s += "\\\\"; break;
        case '\n': s += "\\n"; break;
        default: s += ch;
        }
    }
    return s;
}

void render_metrics_text(const report::MetricSet& set, std::ostream& out)
{
    for (const auto& f : set.families()) {
        out << "# HELP " << f.name << ' ' << prometheus_help_text(f.help) << '\n'
            << "# TYPE " << f.name << ' ' << report::metric_type_name(f.type) << '\n';
        for (const auto& s : f.samples) {
            out << f.name;
            for (std::size_t i = 0; i < s.labels.size(); ++i)
                out << (i == 0 ? "{" : ",") << s.labels[i].name << "=\"" << prometheus_label_value(s.labels[i].value)
                    << '"';
            out << (s.labels.empty() ? "" : "}") << ' ' << s.value << '\n';
        }
    }
    out.flush();
}

void render_ports_prometheus(const report::PortsReport& report, std::ostream& out)
{
    report::MetricSet set;
    report::add_ports_metrics(set, report);
    render_metrics_text(set, out);
}

}  // namespace qps::formatters
