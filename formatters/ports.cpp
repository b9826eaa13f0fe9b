#include "formatters/ports.hpp"

#include <algorithm>
#include <type_traits>
#include <fmt/format.h>

namespace qps::formatters {

namespace {

using u64 = std::uint64_t;

template <class T>
Value opt(const std::optional<T>& v)
{
    if (!v)
        return Value{};
    if constexpr (std::is_integral_v<T>)
        return Value{u64{*v}};
    else
        return Value{*v};
}

// A map keyed by counter name, each {"value": n}, or {"error": "..."} for
// a counter that could not be read: the shape `ports --watch` has too.
void render_counters(Printer& p, std::string_view key, std::string_view heading, const kernel::CounterSet& set)
{
    if (!set.present)
        return;
    const bool any_error =
        std::any_of(set.counters.begin(), set.counters.end(), [](const auto& c) { return !c.value.has_value(); });
    Table t{{{"name", "COUNTER"}, {"value", "VALUE"}}, {}, true};
    if (any_error)
        t.columns.push_back({"error", "ERROR"});
    for (const auto& c : set.counters)
        t.rows.push_back({c.name, opt(c.value), c.value ? Value{} : Value{c.error}});
    p.table(key, heading, t);
}

void render_gids(Printer& p, const report::PortReport& port)
{
    const bool any_error =
        std::any_of(port.gids.begin(), port.gids.end(), [](const auto& g) { return !g.error.empty(); });
    Table t{{{"index", "IDX"}, {"gid", "GID"}, {"type", "TYPE"}, {"netdev", "NETDEV"}, {"ipv4", "IPV4"}}, {}};
    if (any_error)
        t.columns.push_back({"error", "ERROR"});
    for (const auto& g : port.gids) {
        auto text_or_null = [](const std::string& s) { return s.empty() ? Value{} : Value{s}; };
        t.rows.push_back({u64{g.index}, text_or_null(g.gid), opt(g.type), text_or_null(g.netdev), opt(g.ipv4),
                          text_or_null(g.error)});
    }
    p.table("gids", fmt::format("GID table: {} valid, {} empty of {} entries", port.gids.size(), port.gid_empty,
                                port.gid_tbl_len),
            t);
    p.field("gid_empty_entries", "empty GID entries", u64{port.gid_empty});
}

void render_pkeys(Printer& p, const report::PortReport& port)
{
    Table t{{{"index", "IDX"}, {"pkey", "P_KEY"}, {"full_member", "FULL MEMBER"}}, {}};
    for (const auto& k : port.pkeys)
        t.rows.push_back({u64{k.index}, decode::hex_number(k.pkey, 4), k.full_member});
    p.table("pkeys", fmt::format("P_Key table: {} non-zero of {} entries", port.pkeys.size(), port.pkey_tbl_len), t);
    if (!port.pkey_errors.empty()) {
        ListScope errors(p, "pkey_errors", "P_Key entries that could not be read");
        for (const auto& e : port.pkey_errors)
            p.field("", "error", e);
    }
}

void render_port(Printer& p, const report::PortReport& port)
{
    ObjectScope scope(p, "", fmt::format("port {}", port.port));
    p.field("port", "port", u64{port.port});
    p.field("state", "state", port.state);
    p.field("phys_state", "physical state", port.phys_state);
    p.field("link_layer", "link layer", port.link_layer);
    p.field("active_width", "active width", port.width);
    p.field("active_speed", "active speed", port.speed);
    p.field("rate_gbps", "rate (Gb/s)", opt(port.rate_gbps));
    p.field("data_rate_gbps", "data rate (Gb/s)", opt(port.data_rate_gbps));
    p.field("max_mtu", "max MTU", port.max_mtu);
    p.field("active_mtu", "active MTU", port.active_mtu);
    p.field("max_msg_sz", "max message size", u64{port.max_msg_sz});
    p.field("lid", "LID", u64{port.lid});
    p.field("sm_lid", "SM LID", u64{port.sm_lid});
    p.field("lmc", "LMC", u64{port.lmc});
    p.field("sm_sl", "SM SL", u64{port.sm_sl});
    p.field("max_vl_num", "VL capability", port.max_vl_num);
    p.field("subnet_timeout", "subnet timeout", u64{port.subnet_timeout});
    p.field("init_type_reply", "InitTypeReply", u64{port.init_type_reply});
    p.field("gid_tbl_len", "GID table length", int64_t{port.gid_tbl_len});
    p.field("pkey_tbl_len", "P_Key table length", u64{port.pkey_tbl_len});
    p.field("port_cap_flags", "capability flags", port.cap_flags);
    p.field("port_cap_flags2", "capability flags 2", port.cap_flags2);
    p.field("bad_pkey_cntr", "bad P_Key counter", u64{port.bad_pkey_cntr});
    p.field("qkey_viol_cntr", "Q_Key violation counter", u64{port.qkey_viol_cntr});
    render_gids(p, port);
    render_pkeys(p, port);
    render_counters(p, "counters", "counters", port.counters);
    render_counters(p, "hw_counters", "hw_counters", port.hw_counters);
}

void render_device(Printer& p, const report::DeviceReport& d)
{
    ObjectScope scope(p, "", fmt::format("{} ({})", d.name, d.uverbs));
    p.field("name", "name", d.name);
    p.field("uverbs", "uverbs device", d.uverbs);
    p.field("node_type", "node type", d.node_type);
    p.field("transport", "transport", d.transport);
    p.field("fw_ver", "firmware", d.fw_ver);
    p.field("node_guid", "node GUID", d.node_guid);
    p.field("sys_image_guid", "system image GUID", d.sys_image_guid);
    p.field("vendor_id", "vendor id", decode::hex_number(d.vendor_id, 4));
    p.field("vendor_part_id", "vendor part id", u64{d.vendor_part_id});
    p.field("hw_ver", "hardware version", decode::hex_number(d.hw_ver));
    p.field("phys_port_cnt", "physical ports", u64{d.phys_port_cnt});
    p.field("atomic_cap", "atomic capability", d.atomic_cap);
    p.field("device_cap_flags", "capability flags", d.cap_flags);
    {
        ObjectScope limits(p, "limits", "limits");
        for (const auto& l : d.limits)
            p.field(l.key, l.key, l.value);
        p.field("max_inline_data_rc", "max_inline_data_rc (probed)", opt(d.max_inline_rc));
        if (!d.max_inline_error.empty())
            p.field("max_inline_data_rc_error", "max_inline_data_rc probe failed", d.max_inline_error);
    }
    if (!d.capabilities.empty()) {
        ObjectScope caps(p, "capabilities", "extended capabilities");
        for (const auto& c : d.capabilities)
            p.field(c.key, c.key, c.flags);
    }
    ListScope ports(p, "ports");
    for (const auto& port : d.ports)
        render_port(p, port);
}

}  // namespace

void render_ports(const report::PortsReport& report, Printer& p)
{
    ListScope devices(p, "devices");
    for (const auto& d : report.devices)
        render_device(p, d);
}

}  // namespace qps::formatters
