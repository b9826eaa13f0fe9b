#include "src/report/metrics.hpp"

#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <fmt/format.h>

#include "src/decode/port.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::report {

namespace {

std::string value_text(double v)
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
    MetricType type;
    std::string_view help;
    std::span<const decode::EnumEntry<int>> codes;  // what the values mean, listed in HELP
    std::optional<double> (*value)(const PortReport&);
};

const std::array<PortMetric, 8> port_metrics{{
    {"state", MetricType::gauge, "Port state (ibv_port_state)", decode::port_state_table,
     [](const PortReport& p) -> std::optional<double> { return static_cast<double>(p.state.raw); }},
    {"physical_state", MetricType::gauge, "Port physical state (PortPhysicalState)", decode::phys_state_table,
     [](const PortReport& p) -> std::optional<double> { return static_cast<double>(p.phys_state.raw); }},
    {"rate_bytes_per_second", MetricType::gauge, "Nominal link rate (active width x speed), in bytes per second", {},
     [](const PortReport& p) -> std::optional<double> {
         return p.rate_gbps ? std::optional(*p.rate_gbps * bytes_per_gbit) : std::nullopt;
     }},
    {"data_rate_bytes_per_second", MetricType::gauge, "Link data rate after line encoding, in bytes per second", {},
     [](const PortReport& p) -> std::optional<double> {
         return p.data_rate_gbps ? std::optional(*p.data_rate_gbps * bytes_per_gbit) : std::nullopt;
     }},
    {"active_mtu_bytes", MetricType::gauge, "Active MTU in bytes", {},
     [](const PortReport& p) { return p.active_mtu.value; }},
    {"max_mtu_bytes", MetricType::gauge, "Largest MTU the port supports, in bytes", {},
     [](const PortReport& p) { return p.max_mtu.value; }},
    {"bad_pkey_total", MetricType::counter, "Packets dropped for a bad P_Key (ibv_port_attr bad_pkey_cntr)", {},
     [](const PortReport& p) -> std::optional<double> { return p.bad_pkey_cntr; }},
    {"qkey_violations_total", MetricType::counter, "Q_Key violations (ibv_port_attr qkey_viol_cntr)", {},
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
    std::string part = metric_name_part(counter);
    const bool has_total = part == "total" || part.ends_with("_total");
    return fmt::format("{}{}_{}{}", metric_prefix, set, part, has_total ? "" : "_total");
}

void add_device(MetricSet& x, const DeviceReport& d)
{
    x.add(fmt::format("{}device_info", metric_prefix), MetricType::gauge, "RDMA device identity, always 1",
          {{"device", d.name},
           {"uverbs", d.uverbs},
           {"node_type", d.node_type.name.value_or("")},
           {"transport", d.transport.name.value_or("")},
           {"fw_ver", d.fw_ver},
           {"node_guid", d.node_guid},
           {"sys_image_guid", d.sys_image_guid}},
          std::uint64_t{1});
}

void add_port(MetricSet& x, const DeviceReport& d, const PortReport& p)
{
    const std::string port = std::to_string(p.port);
    const std::string link_layer = p.link_layer.name.value_or("");
    const std::vector<MetricLabel> port_labels{{"device", d.name}, {"port", port}, {"link_layer", link_layer}};
    for (const auto& m : port_metrics)
        if (const auto v = m.value(p))
            x.add(fmt::format("{}port_{}", metric_prefix, m.name), m.type, with_codes(m.help, m.codes), port_labels,
                  *v);
    for (const auto& cs : counter_sets) {
        const kernel::CounterSet& set = p.*cs.member;
        if (!set.present)
            continue;
        std::uint64_t not_exported = 0;
        for (const auto& c : set.counters) {
            const bool added =
                c.value && x.add(counter_family(cs.set, c.name), MetricType::counter,
                                 fmt::format("Port counter {}/{} in sysfs{}", cs.set, c.name, note_of(c.name)),
                                 port_labels, *c.value);
            not_exported += added ? 0 : 1;
        }
        auto labels = port_labels;
        labels.push_back({"set", std::string(cs.set)});
        x.add(fmt::format("{}port_counters_not_exported", metric_prefix), MetricType::gauge,
              "Counter files of the port not exported: unreadable, or a name that clashes once sanitized",
              std::move(labels), not_exported);
    }
}

}  // namespace

std::string_view metric_type_name(MetricType type)
{
    return type == MetricType::counter ? "counter" : "gauge";
}

bool MetricSet::add(const std::string& name, MetricType type, std::string_view help, std::vector<MetricLabel> labels,
                    double value)
{
    return add_sample(name, type, help, std::move(labels), value_text(value), value);
}

bool MetricSet::add(const std::string& name, MetricType type, std::string_view help, std::vector<MetricLabel> labels,
                    std::uint64_t value)
{
    return add_sample(name, type, help, std::move(labels), std::to_string(value), static_cast<double>(value));
}

bool MetricSet::add_sample(const std::string& name, MetricType type, std::string_view help,
                           std::vector<MetricLabel> labels, std::string text, double number)
{
    // The exposition is UTF-8: bytes from outside (a device name, a process's comm) as in JSON.
    std::vector<std::pair<std::string, std::string>> key;
    for (auto& l : labels) {
        l.value = util::to_utf8(l.value);
        key.emplace_back(l.name, l.value);
    }
    if (!series_[name].insert(std::move(key)).second)
        return false;
    auto [it, fresh] = index_.try_emplace(name, families_.size());
    if (fresh)
        families_.push_back({name, type, util::to_utf8(help), {}});
    families_[it->second].samples.push_back({std::move(labels), std::move(text), number});
    return true;
}

std::string metric_name_part(std::string_view raw)
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

void add_ports_metrics(MetricSet& set, const PortsReport& report)
{
    for (const auto& d : report.devices)
        add_device(set, d);
    for (const auto& d : report.devices)
        for (const auto& p : d.ports)
            add_port(set, d, p);
}

}  // namespace qps::report
