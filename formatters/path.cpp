#include "formatters/path.hpp"

#include <fmt/format.h>

#include "formatters/findings.hpp"
#include "src/decode/tos.hpp"

namespace qps::formatters {

namespace {

Value optional_us(const std::optional<double>& us) { return us ? Value(Scaled{*us, 1, 1}) : Value(nullptr); }

Value optional_count(const std::optional<std::uint64_t>& n) { return n ? Value(*n) : Value(nullptr); }

void render_side(std::string_view key, std::string_view heading, const std::string& device, std::uint32_t port,
                 const std::string& gid, std::uint32_t mtu, const kernel::PacketCounts& packets, Printer& p)
{
    p.begin_object(key, heading);
    p.field("device", "device", device);
    p.field("port", "port", std::uint64_t{port});
    p.field("gid", "GID", gid);
    p.field("mtu_bytes", "active MTU", std::uint64_t{mtu});
    p.field("packets_sent", "RoCE packets out", optional_count(packets.sent));
    p.field("packets_received", "RoCE packets in", optional_count(packets.received));
    p.end_object();
}

void render_direction(const ops::PathDirection& d, Printer& p)
{
    p.begin_object("", d.name);
    p.datum("name", d.name);
    p.field("sender_mtu_bytes", "sender's MTU", std::uint64_t{d.sender_mtu});
    Table t{{{"bytes", "bytes"}, {"sent", "sent"}, {"arrived", "arrived"}}, {}, false};
    for (const auto& probe : d.probes)
        t.rows.push_back({std::uint64_t{probe.bytes}, std::uint64_t{probe.sent}, std::uint64_t{probe.arrived}});
    p.table("sizes", "MTU sweep (UD, one packet each)", t);
    p.field("burst_sent", "burst sent", std::uint64_t{d.burst_sent});
    p.field("burst_arrived", "burst arrived", std::uint64_t{d.burst_arrived});
    p.field("traffic_class_sent", "traffic class sent", std::int64_t{d.traffic_class_sent});
    p.note(fmt::format("  (sent: {})", decode::traffic_class_text(d.traffic_class_sent)));
    p.field("traffic_class_received", "traffic class received",
            d.traffic_class_received ? Value(std::int64_t{*d.traffic_class_received}) : Value(nullptr));
    if (d.traffic_class_received)
        p.note(fmt::format("  (received: {})", decode::traffic_class_text(*d.traffic_class_received)));
    p.field("failed_receives", "receives in error", std::uint64_t{d.failed_receives});
    p.end_object();
}

void render_findings(std::string_view key, std::string_view heading, const std::vector<Finding>& all,
                     Printer& p)
{
    p.begin_list(key, heading);
    for (const auto& f : all)
        render_finding(f, p);
    p.end_list();
}

}  // namespace

void render_path(const ops::PathReport& r, Printer& p)
{
    p.field("peer", "peer", r.peer);
    p.field("role", "role", r.role);
    p.field("tcp_port", "TCP port", std::uint64_t{r.tcp_port});
    p.field("traffic_class", "traffic class", std::int64_t{r.traffic_class});
    p.note(fmt::format("  ({})", decode::traffic_class_text(r.traffic_class)));
    p.field("sl", "service level", std::uint64_t{r.sl});
    p.field("flow_label", "flow label", std::uint64_t{r.flow_label});
    p.field("pkey_index", "P_Key index", std::uint64_t{r.pkey_index});
    p.field("probes", "messages per size", std::uint64_t{r.probes});
    p.field("burst", "burst", std::uint64_t{r.burst});
    p.field("pings", "pings", std::uint64_t{r.pings});
    p.field("measured_s", "measured (s)", Scaled{r.seconds, 1, 1});
    p.datum("gid_index", std::uint64_t{r.gid_index});
    render_side("here", "here", r.device, r.port, r.gid, r.mtu, r.packets, p);
    render_side("there", "the peer", r.peer_device, r.peer_port, r.peer_gid, r.peer_mtu, r.peer_packets, p);

    p.begin_object("round_trip", "round trip (UD ping, the client's clock)");
    p.field("sent", "pings", std::uint64_t{r.rtt.sent});
    p.field("answered", "answered", std::uint64_t{r.rtt.answered});
    p.field("min_us", "min us", optional_us(r.rtt.min_us));
    p.field("p50_us", "p50 us", optional_us(r.rtt.p50_us));
    p.field("max_us", "max us", optional_us(r.rtt.max_us));
    if (!r.rtt.stopped.empty())
        p.field("stopped", "stopped", r.rtt.stopped);
    p.field("ack_timeout_code", "RC ACK timeout code", std::int64_t{r.ack_timeout_code});
    p.field("retry_cnt", "RC retry count", std::int64_t{r.retry_cnt});
    p.end_object();

    p.begin_list("directions", "");
    render_direction(r.out, p);
    render_direction(r.in, p);
    p.end_list();

    render_findings("findings", "findings", r.findings, p);
    render_findings("counters", "error counters here", r.counters, p);
    render_findings("peer_counters", "error counters of the peer", r.peer_counters, p);
    const bool healthy = ops::path_exit_code(r) == 0;
    p.datum("healthy", healthy);
    p.note(healthy ? "healthy: RoCE packets cross both ways, every size arrives, no loss"
                   : "NOT healthy: see the WARN and FAIL lines");
}

std::vector<std::string> path_problem_lines(const ops::PathReport& r)
{
    std::vector<std::string> out;
    const auto add = [&](const std::vector<Finding>& all, const std::string& where) {
        for (const auto& f : all)
            if (f.status == Status::warn || f.status == Status::fail)
                out.push_back(finding_line(f, f.device.empty() || where.empty() ? where : f.device + " (" + where + ")"));
    };
    add(r.findings, "");  // each summary names its direction
    add(r.counters, "here");
    add(r.peer_counters, "peer " + r.peer_host);
    return out;
}

}  // namespace qps::formatters
