#include "formatters/prometheus.hpp"

#include <array>
#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <span>
#include <vector>
#include <fmt/format.h>

#include "src/decode/port.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

using report::DeviceReport;
using report::PortReport;

constexpr std::string_view prefix = "qpscope_";

// Metric families in the order they are first added; the exposition format
// wants every sample of a family together, under its one HELP and TYPE.
class Exposition {
public:
    // False (and nothing added) when the family already has this series.
    bool add(const std::string& name, std::string_view type, std::string_view help, const std::string& labels,
             std::string value)
    {
        auto [it, fresh] = index_.try_emplace(name, families_.size());
        if (fresh)
            families_.push_back({name, prometheus_help_text(help), type, {}, {}});
        Family& f = families_[it->second];
        if (!f.series.insert(labels).second)
            return false;
        f.samples.push_back({labels, std::move(value)});
        return true;
    }

    void write(std::ostream& out) const
    {
        for (const auto& f : families_) {
            out << "# HELP " << f.name << ' ' << f.help << '\n' << "# TYPE " << f.name << ' ' << f.type << '\n';
            for (const auto& s : f.samples)
                out << f.name << (s.labels.empty() ? "" : "{" + s.labels + "}") << ' ' << s.value << '\n';
        }
    }

private:
    struct Sample {
        std::string labels, value;
    };
    struct Family {
        std::string name, help;
        std::string_view type;
        std::set<std::string> series;
        std::vector<Sample> samples;
    };
    std::vector<Family> families_;
    std::map<std::string, std::size_t> index_;
};

struct Label {
    std::string_view name;
    std::string_view value;
};

std::string labels(std::initializer_list<Label> list)
{
    std::string s;
    for (const auto& l : list)
        s += fmt::format("{}{}=\"{}\"", s.empty() ? "" : ",", l.name, prometheus_label_value(l.value));
    return s;
}

std::string sample_value(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    if (v == std::trunc(v) && std::fabs(v) < 9.007199254740992e15)  // exact integers without exponent
        return fmt::format("{:.0f}", v);
    return fmt::format("{}", v);
}

// "Port state: 0 NOP, 1 DOWN, ..." from a decode table.
std::string with_codes(std::string_view help, std::span<const decode::EnumEntry<int>> codes)
{
    std::string s(help);
    for (std::size_t i = 0; i < codes.size(); ++i)
        s += fmt::format("{}{} {}", i == 0 ? ": " : ", ", codes[i].value, codes[i].name);
    return s;
}

constexpr double bytes_per_gbit = 1e9 / 8;

// Per-port values, one family each (qpscope_port_<name>).
struct PortMetric {
    std::string_view name;
    std::string_view type;
    std::string_view help;
    std::span<const decode::EnumEntry<int>> codes;  // what the values mean, listed in HELP
    std::optional<double> (*value)(const PortReport&);
};

const std::array<PortMetric, 8> port_metrics{{
    {"state", "gauge", "Port state (ibv_port_state)", decode::port_state_table,
     [](const PortReport& p) -> std::optional<double> { return static_cast<double>(p.state.raw); }},
    {"physical_state", "gauge", "Port physical state (PortPhysicalState)", decode::phys_state_table,
     [](const PortReport& p) -> std::optional<double> { return static_cast<double>(p.phys_state.raw); }},
    {"rate_bytes_per_second", "gauge", "Nominal link rate (active width x speed), in bytes per second", {},
     [](const PortReport& p) -> std::optional<double> {
         return p.rate_gbps ? std::optional(*p.rate_gbps * bytes_per_gbit) : std::nullopt;
     }},
    {"data_rate_bytes_per_second", "gauge", "Link data rate after line encoding, in bytes per second", {},
     [](const PortReport& p) -> std::optional<double> {
         return p.data_rate_gbps ? std::optional(*p.data_rate_gbps * bytes_per_gbit) : std::nullopt;
     }},
    {"active_mtu_bytes", "gauge", "Active MTU in bytes", {},
     [](const PortReport& p) { return p.active_mtu.value; }},
    {"max_mtu_bytes", "gauge", "Largest MTU the port supports, in bytes", {},
     [](const PortReport& p) { return p.max_mtu.value; }},
    {"bad_pkey_total", "counter", "Packets dropped for a bad P_Key (ibv_port_attr bad_pkey_cntr)", {},
     [](const PortReport& p) -> std::optional<double> { return p.bad_pkey_cntr; }},
    {"qkey_violations_total", "counter", "Q_Key violations (ibv_port_attr qkey_viol_cntr)", {},
     [](const PortReport& p) -> std::optional<double> { return p.qkey_viol_cntr; }},
}};

// The two sysfs counter directories, each a family per counter file:
// qpscope_<set>_<counter>_total.
struct CounterSetMetric {
    std::string_view set;
    kernel::CounterSet PortReport::*member;
};
constexpr std::array<CounterSetMetric, 2> counter_sets{{
    {"counters", &PortReport::counters},
    {"hw_counters", &PortReport::hw_counters},
}};

// What HELP adds for counters whose unit is not what the name suggests.
struct CounterNote {
    std::string_view name, note;
};
constexpr std::array<CounterNote, 2> counter_notes{{
    {"port_xmit_data", " (in units of 4 bytes)"},
    {"port_rcv_data", " (in units of 4 bytes)"},
}};

std::string_view note_of(std::string_view counter)
{
    for (const auto& n : counter_notes)
        if (n.name == counter)
            return n.note;
    return {};
}

std::string counter_family(std::string_view set, std::string_view counter)
{
    std::string part = prometheus_name_part(counter);
    const bool has_total = part == "total" || part.ends_with("_total");
    return fmt::format("{}{}_{}{}", prefix, set, part, has_total ? "" : "_total");
}

void add_device(Exposition& x, const DeviceReport& d)
{
    x.add(fmt::format("{}device_info", prefix), "gauge", "RDMA device identity, always 1",
          labels({{"device", d.name},
                  {"uverbs", d.uverbs},
                  {"node_type", d.node_type.name.value_or("")},
                  {"transport", d.transport.name.value_or("")},
                  {"fw_ver", d.fw_ver},
                  {"node_guid", d.node_guid},
                  {"sys_image_guid", d.sys_image_guid}}),
          "1");
}

void add_port(Exposition& x, const DeviceReport& d, const PortReport& p)
{
    const std::string port = std::to_string(p.port);
    const std::string_view link_layer = p.link_layer.name ? std::string_view(*p.link_layer.name) : "";
    const std::string port_labels = labels({{"device", d.name}, {"port", port}, {"link_layer", link_layer}});
    for (const auto& m : port_metrics)
        if (const auto v = m.value(p))
            x.add(fmt::format("{}port_{}", prefix, m.name), m.type, with_codes(m.help, m.codes), port_labels,
                  sample_value(*v));
    for (const auto& cs : counter_sets) {
        const kernel::CounterSet& set = p.*cs.member;
        if (!set.present)
            continue;
        std::uint64_t not_exported = 0;
        for (const auto& c : set.counters) {
            const bool added =
                c.value && x.add(counter_family(cs.set, c.name), "counter",
                                 fmt::format("Port counter {}/{} in sysfs{}", cs.set, c.name, note_of(c.name)),
                                 port_labels, std::to_string(*c.value));
            not_exported += added ? 0 : 1;
        }
        x.add(fmt::format("{}port_counters_not_exported", prefix), "gauge",
              "Counter files of the port not exported: unreadable, or a name that clashes once sanitized",
              labels({{"device", d.name}, {"port", port}, {"link_layer", link_layer}, {"set", cs.set}}),
              std::to_string(not_exported));
    }
}

}  // namespace

std::string prometheus_name_part(std::string_view raw)
{
    std::string s;
    s.reserve(raw.size());
    for (const char ch : raw) {
        if (ch >= 'A' && ch <= 'Z')
            s += static_cast<char>(ch - 'A' + 'a');
        else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')
            s += ch;
        else
            s += '_';
    }
    return s;
}

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

void render_ports_prometheus(const report::PortsReport& report, std::ostream& out)
{
    Exposition x;
    for (const auto& d : report.devices)
        add_device(x, d);
    for (const auto& d : report.devices)
        for (const auto& p : d.ports)
            add_port(x, d, p);
    x.write(out);
    out.flush();
}

}  // namespace qps::formatters
