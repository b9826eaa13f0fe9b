#include "src/ops/path.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "src/decode/gid.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/health/counter_checks.hpp"
#include "src/json.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/net/deadline_io.hpp"
#include "src/ops/side_checks.hpp"
#include "src/perf/ud_probe.hpp"
#include "src/perf/link_checks.hpp"

namespace qps::ops {

namespace {

using SteadyClock = std::chrono::steady_clock;

// The sweep's sizes: every path MTU.
constexpr std::uint32_t sweep_sizes[] = {256, 512, 1024, 2048, 4096};
// A ping unanswered this long is lost; this many lost in a row end the pings.
constexpr std::chrono::milliseconds ping_wait{500};
constexpr std::uint32_t pings_give_up = 5;
// How long a sender waits after its last send completed before the receiver
// counts: what is still on the way arrives (a round trip is far shorter).
constexpr std::chrono::milliseconds drain_wait{500};
// The RoCE v2 headers of an RC write's first packet: IPv4 20 (IPv6 40) +
// UDP 8 + BTH 12 + RETH 16 + ICRC 4 bytes, what a hop must carry beyond the
// path MTU (the MTU finding's fix).
constexpr std::uint32_t rc_ipv4_headers = 60, rc_ipv6_headers = 80;

Json path_params(const PathOptions& o)
{
    const verbs::QpKnobs& k = o.knobs;
    return Json{{"traffic_class", k.traffic_class}, {"probes", o.probes}, {"burst", o.burst},
                {"pings", o.pings},                 {"sl", k.sl},         {"flow_label", k.flow_label},
                {"pkey_index", k.pkey_index},       {"ack_timeout", k.ack_timeout}, {"retry_cnt", k.retry_cnt}};
}

// The client's path parameters, as this server runs them.
PathOptions adopted_path(const PathOptions& mine, const Json& p)
{
    PathOptions o = mine;
    const auto number = [&](const char* key, std::uint32_t min, std::uint32_t max) {
        std::uint32_t v = 0;
        try {
            v = p.at(key).get<std::uint32_t>();
        } catch (const nlohmann::json::exception& e) {
            throw OperationError(fmt::format("the client's path parameters are malformed: {}", e.what()));
        }
        if (v < min || v > max)
            throw OperationError(fmt::format("the client asked for {} {}: valid are {}..{}", v, key, min, max));
        return v;
    };
    verbs::QpKnobs& k = o.knobs;
    k.traffic_class = static_cast<std::uint8_t>(number("traffic_class", 0, decode::max_traffic_class));
    o.probes = number("probes", 1, max_path_probes);
    o.burst = number("burst", 1, max_path_burst);
    o.pings = number("pings", 1, max_path_pings);
    k.sl = static_cast<std::uint8_t>(number("sl", 0, decode::max_sl));
    k.flow_label = number("flow_label", 0, decode::max_flow_label);
    k.pkey_index = static_cast<std::uint16_t>(number("pkey_index", 0, decode::max_pkey_index));
    k.ack_timeout = static_cast<std::uint8_t>(number("ack_timeout", 0, unsigned{decode::max_timer_code}));
    k.retry_cnt = static_cast<std::uint8_t>(number("retry_cnt", 0, decode::max_retry));
    return o;
}

struct SideCounters {
    kernel::CounterSet hw, standard;
};

SideCounters read_counters(const std::string& device, std::uint32_t port)
{
    return {kernel::read_port_counters(device, port, "hw_counters"),
            kernel::read_port_counters(device, port, "counters")};
}

Json to_json(const kernel::CounterSet& set)
{
    Json values = Json::object();
    for (const auto& c : set.counters)
        values[c.name] = c.value ? Json(*c.value) : Json(nullptr);
    return Json{{"present", set.present}, {"counters", values}};
}

kernel::CounterSet counter_set_from_json(const Json& j)
{
    kernel::CounterSet set;
    set.present = j.at("present").get<bool>();
    for (const auto& [name, value] : j.at("counters").items()) {
        kernel::Counter c;
        c.name = name;
        if (value.is_number_unsigned())
            c.value = value.get<std::uint64_t>();
        else
            c.error = "not read by the peer";
        set.counters.push_back(std::move(c));
    }
    return set;
}

kernel::PacketCounts packets_of(const SideCounters& before, const SideCounters& after)
{
    return kernel::packets_since(kernel::packet_counts(before.hw, before.standard),
                                 kernel::packet_counts(after.hw, after.standard));
}

std::vector<Finding> counter_findings(const std::string& device, std::uint32_t port, const SideCounters& before,
                                      const SideCounters& after, double seconds)
{
    std::vector<Finding> all = health::rising_counter_findings(device, port, before.hw, after.hw, "hw_counters", seconds);
    for (auto& f : health::rising_counter_findings(device, port, before.standard, after.standard, "counters", seconds))
        if (f.status != Status::skipped || all.empty())
            all.push_back(std::move(f));
    return all;
}

// One direction: the receiver posts its receives, the sender sends the
// sweep and the burst and waits `drain` for the last to arrive, the
// receiver counts; then both sides swap what they sent and counted.
PathDirection one_direction(perf::UdProbe& probe, net::Exchange& ex, const PathOptions& o,
                            const verbs::LinkResources& res, bool sending, std::chrono::milliseconds drain)
{
    const std::uint32_t sizes = static_cast<std::uint32_t>(std::size(sweep_sizes));
    if (!sending)
        probe.top_up_receives(o.pings + sizes * o.probes + o.burst);
    ex.ready();  // the receives are posted
    Json mine;
    if (sending) {
        Json sent = Json::object();
        for (const std::uint32_t size : sweep_sizes)
            if (size <= res.local().mtu) {
                probe.send(size, o.probes, o.timeout);
                sent[std::to_string(size)] = o.probes;
            }
        probe.send(perf::burst_bytes, o.burst, o.timeout);
        net::sleep_until(net::IoClock::now() + drain, "waiting for the last probes to arrive");
        mine = Json{{"sent", sent},
                    {"burst", o.burst},
                    {"mtu", res.local().mtu},
                    {"traffic_class", o.knobs.traffic_class}};
    }
    // The sender is done: the receiver waits for its sends (each window of
    // them bounded by the sender's --timeout) and its drain, then its own
    // --timeout, whichever side has the shorter one.
    ex.ready(sending ? o.timeout : ex.peer_timeout() + drain + o.timeout);
    if (!sending) {
        const perf::Arrivals a = probe.drain();
        Json arrived = Json::object();
        for (const auto& [size, n] : a.by_size)
            arrived[std::to_string(size)] = n;
        mine = Json{{"arrived", arrived},
                    {"traffic_class", a.traffic_class ? Json(*a.traffic_class) : Json(nullptr)},
                    {"failed", a.failed}};
    }
    const Json theirs = ex.results(mine, o.timeout);
    const Json& s = sending ? mine : theirs;
    const Json& r = sending ? theirs : mine;
    PathDirection d;
    try {
        d.sender_mtu = s.at("mtu").get<std::uint32_t>();
        d.traffic_class_sent = s.at("traffic_class").get<int>();
        d.burst_sent = s.at("burst").get<std::uint32_t>();
        const Json& arrived = r.at("arrived");
        for (const auto& [size, n] : s.at("sent").items())
            d.probes.push_back({static_cast<std::uint32_t>(std::stoul(size)), n.get<std::uint32_t>(),
                                arrived.value(size, 0u)});
        d.burst_arrived = arrived.value(std::to_string(perf::burst_bytes), 0u);
        if (r.at("traffic_class").is_number_integer())
            d.traffic_class_received = r.at("traffic_class").get<int>();
        d.failed_receives = r.at("failed").get<std::uint32_t>();
    } catch (const std::exception& e) {
        throw OperationError(fmt::format("exchange with {}: the peer's path results are malformed: {}",
                                         ex.channel().peer(), e.what()));
    }
    std::sort(d.probes.begin(), d.probes.end(), [](const health::MtuProbe& a, const health::MtuProbe& b) { return a.bytes < b.bytes; });
    return d;
}

PathRoundTrip round_trip(perf::UdProbe& probe, net::Exchange& ex, const PathOptions& o, bool client)
{
    PathRoundTrip rt;
    probe.top_up_receives(o.pings + 1);
    ex.ready();  // both sides' receives are posted
    if (!client) {
        probe.echo_until(ex.channel().fd(), ping_wait * (o.pings + 1) + o.timeout, o.timeout);
        ex.ready(o.timeout);
        return rt;  // the client's figures come with its results
    }
    perf::Pings p = probe.ping(o.pings, ping_wait, pings_give_up);
    ex.announce_ready();
    // The server's last answer may still be trying to leave for the
    // server's --timeout, and then it says why: that bound, then this one.
    ex.await_ready(ex.peer_timeout() + o.timeout);
    rt.sent = p.sent;
    rt.answered = p.answered;
    rt.stopped = p.stopped;
    if (!p.rtt_us.empty()) {
        std::sort(p.rtt_us.begin(), p.rtt_us.end());
        rt.min_us = p.rtt_us.front();
        rt.max_us = p.rtt_us.back();
        rt.p50_us = p.rtt_us[(p.rtt_us.size() - 1) / 2];
    }
    return rt;
}

Json to_json(const PathRoundTrip& rt)
{
    const auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
    return Json{{"sent", rt.sent},         {"answered", rt.answered}, {"min_us", opt(rt.min_us)},
                {"p50_us", opt(rt.p50_us)}, {"max_us", opt(rt.max_us)}, {"stopped", rt.stopped}};
}

PathRoundTrip round_trip_from_json(const Json& j)
{
    const auto opt = [&](const char* key) {
        return j.at(key).is_number() ? std::optional<double>(j.at(key).get<double>()) : std::nullopt;
    };
    PathRoundTrip rt;
    rt.sent = j.at("sent").get<std::uint32_t>();
    rt.answered = j.at("answered").get<std::uint32_t>();
    rt.min_us = opt("min_us");
    rt.p50_us = opt("p50_us");
    rt.max_us = opt("max_us");
    rt.stopped = j.at("stopped").get<std::string>();
    return rt;
}

// The findings of a measured run; `headers`: what a hop carries beyond the path MTU.
void judge(PathReport& r, const health::PathExpect& expect, std::uint32_t headers)
{
    health::PathMeasured m;
    for (const PathDirection* d : {&r.out, &r.in}) {
        const bool out = d == &r.out;
        const Finding reach = health::check_roce_reaches(
            {d->name, d->sent(), d->arrived(), out ? r.packets.sent : r.peer_packets.sent,
             out ? r.peer_packets.received : r.packets.received},
            r.tcp_port);
        r.findings.push_back(reach);
        if (reach.failed()) {  // the sweep, the loss and the class say nothing more
            m.mtu = 0;
            m.loss_percent = 100.0;
            continue;
        }
        Finding mtu = health::check_path_mtu(d->probes, d->sender_mtu, out ? r.peer_mtu : r.mtu, headers);
        mtu.summary = fmt::format("{}: {}", d->name, mtu.summary);
        r.findings.push_back(std::move(mtu));
        r.findings.push_back(health::check_loss(d->name, d->burst_sent, d->burst_arrived));
        r.findings.push_back(health::check_traffic_class(d->name, d->traffic_class_sent, d->traffic_class_received));
        m.mtu = std::min(m.mtu.value_or(UINT32_MAX), d->largest_carried().value_or(0));
        if (d->burst_sent > 0) {
            const double loss = 100.0 * (d->burst_sent - std::min(d->burst_sent, d->burst_arrived)) / d->burst_sent;
            m.loss_percent = std::max(m.loss_percent.value_or(0.0), loss);
        }
    }
    r.findings.push_back(health::check_port_mtus(r.peer_host, r.mtu, r.peer_mtu));
    if (r.rtt.p50_us)
        r.findings.push_back(health::check_ack_timeout(*r.rtt.p50_us, r.ack_timeout_code, r.retry_cnt));
    m.rtt_us = r.rtt.p50_us;
    for (auto& f : health::check_path_expect(expect, m))
        r.findings.push_back(std::move(f));
}

}  // namespace

std::optional<std::uint32_t> PathDirection::largest_carried() const
{
    std::optional<std::uint32_t> best;
    for (const auto& p : probes) {
        if (p.arrived == 0)
            break;
        best = p.bytes;
    }
    return best;
}

std::uint32_t PathDirection::sent() const
{
    std::uint32_t n = burst_sent;
    for (const auto& p : probes)
        n += p.sent;
    return n;
}

std::uint32_t PathDirection::arrived() const
{
    std::uint32_t n = burst_arrived;
    for (const auto& p : probes)
        n += p.arrived;
    return n;
}

namespace {

// The report before any measurement: both sides and the test.
PathReport path_header(const PathOptions& o, net::Exchange& ex, const verbs::LinkResources& res)
{
    PathReport r;
    r.role = o.host.empty() ? "server" : "client";
    r.peer = ex.channel().peer();
    r.peer_host = net::host_of(r.peer);
    r.device = res.device_name();
    r.port = o.port;
    r.gid_index = res.local().gid_index;
    r.gid = net::gid_text(res.local().gid);
    r.peer_gid = net::gid_text(res.remote().gid);
    r.mtu = res.local().mtu;
    r.peer_mtu = res.remote().mtu;
    r.tcp_port = o.tcp_port;
    r.traffic_class = o.knobs.traffic_class;
    r.probes = o.probes;
    r.burst = o.burst;
    r.pings = o.pings;
    r.sl = o.knobs.sl;
    r.flow_label = o.knobs.flow_label;
    r.pkey_index = o.knobs.pkey_index;
    r.ack_timeout_code = o.knobs.ack_timeout;
    r.retry_cnt = o.knobs.retry_cnt;
    return r;
}

// Both sides' counters over the run swapped (the client's round trip with
// them, for the server), and what rose judged.
void swap_counters(PathReport& r, net::Exchange& ex, const PathOptions& o, const SideCounters& before,
                   const SideCounters& after)
{
    const Json mine{{"device", r.device},
                    {"port", r.port},
                    {"before", {{"hw", to_json(before.hw)}, {"standard", to_json(before.standard)}}},
                    {"after", {{"hw", to_json(after.hw)}, {"standard", to_json(after.standard)}}},
                    {"rtt", to_json(r.rtt)}};
    const Json peer = ex.results(mine, o.timeout);
    r.packets = packets_of(before, after);
    r.counters = counter_findings(r.device, r.port, before, after, r.seconds);
    try {
        r.peer_device = peer.at("device").get<std::string>();
        const SideCounters pb{counter_set_from_json(peer.at("before").at("hw")),
                              counter_set_from_json(peer.at("before").at("standard"))};
        const SideCounters pa{counter_set_from_json(peer.at("after").at("hw")),
                              counter_set_from_json(peer.at("after").at("standard"))};
        r.peer_packets = packets_of(pb, pa);
        r.peer_port = peer.at("port").get<std::uint32_t>();
        r.peer_counters = counter_findings(r.peer_device, r.peer_port, pb, pa, r.seconds);
        if (o.host.empty())
            r.rtt = round_trip_from_json(peer.at("rtt"));
    } catch (const std::exception& e) {
        throw OperationError(fmt::format("exchange with {}: the peer's counters are malformed: {}", r.peer, e.what()));
    }
}

}  // namespace

PathReport run_path(const PathOptions& given)
{
    PathOptions asked = given;  // path's test: UD sends of up to the probes' size, one thread
    asked.transport = IBV_QPT_UD;
    asked.op = perf::Op::send;
    asked.sizes = {perf::max_probe_bytes};
    asked.threads = 1;
    const bool client = !asked.host.empty();
    const auto say = [&](const std::string& what) {
        if (asked.progress)
            asked.progress(what);
    };
    // 0. Everything local first, on both sides.
    const perf::LinkSide side = ops::preflight_side(asked, 1, perf::asked_side(asked));

    // 1. Connect, agree, one UD QP a side.
    Json theirs;
    net::Exchange ex = perf::open_exchange(asked, "path", path_params(asked), theirs);
    const PathOptions o = client ? asked : adopted_path(asked, theirs);
    if (!client)
        perf::check_pkey_index(o, side);  // the client's index, against this side's table
    verbs::LinkSetup setup = perf::link_setup(o, side, perf::max_probe_bytes);
    setup.send_depth = 32;
    setup.recv_depth = o.pings + 1 + static_cast<std::uint32_t>(std::size(sweep_sizes)) * o.probes + o.burst;
    verbs::LinkResources res(setup);
    res.connect(ex.endpoints(res.local()));
    const auto started = SteadyClock::now();
    const SideCounters before = read_counters(res.device_name(), o.port);
    PathReport r = path_header(o, ex, res);

    // A step of this side's own that fails (its probes that cannot leave,
    // a completion in error, an interrupt) is told to the peer before this
    // side leaves, so the peer names it instead of a silent peer. A peer's
    // own word, or its silence, ends the exchange with nothing to tell.
    try {
        // 2. The round trip, then each direction, the client's first.
        perf::UdProbe probe(res, o.port);
        say(fmt::format("round trip: {} pings", o.pings));
        r.rtt = round_trip(probe, ex, o, client);
        for (const bool sending : {client, !client}) {
            say(sending ? "sending the MTU sweep and the loss burst" : "receiving the peer's MTU sweep and loss burst");
            PathDirection d = one_direction(probe, ex, o, res, sending, drain_wait);
            d.name = sending ? fmt::format("here -> {}", r.peer_host) : fmt::format("{} -> here", r.peer_host);
            (sending ? r.out : r.in) = std::move(d);
        }

        // 3. Both sides' counters over the run, and the findings.
        const SideCounters after = read_counters(res.device_name(), o.port);
        r.seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
        swap_counters(r, ex, o, before, after);
    } catch (const std::exception& e) {
        ex.abort(fmt::format("{} side ended the run: {}", r.role, e.what()));  // once, best effort; never throws
        throw;
    }
    judge(r, o.expect, decode::gid_kind(res.local().gid) == decode::GidKind::ipv4 ? rc_ipv4_headers : rc_ipv6_headers);
    return r;
}

int path_exit_code(const PathReport& r)
{
    for (const auto* list : {&r.findings, &r.counters, &r.peer_counters})
        for (const auto& f : *list)
            if (f.status == Status::warn || f.status == Status::fail)
                return 1;
    return 0;
}

}  // namespace qps::ops
