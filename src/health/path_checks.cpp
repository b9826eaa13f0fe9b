#include "src/health/path_checks.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"
#include "src/error.hpp"
#include "src/util/text.hpp"

namespace qps::health {

namespace {

std::string duration(double us) { return decode::human_duration_us(us); }

// The smallest timeout code whose timer is at least `us`.
int code_for(double us)
{
    int code = 1;
    while (code < decode::max_timer_code && *decode::ack_timeout_us(code) < us)
        ++code;
    return code;
}

}  // namespace

Finding check_ack_timeout(double rtt_us, int timeout_code, int retry_cnt)
{
    if (timeout_code < 0 || timeout_code > decode::max_timer_code)
        throw UsageError(fmt::format("ACK timeout code {} is out of range: valid are 0..{}", timeout_code,
                                     decode::max_timer_code));
    Finding f;
    f.id = "path.ack_timeout";
    f.seen = {{"rtt_us", fmt::format("{:.3f}", rtt_us)},
              {"timeout_code", std::to_string(timeout_code)},
              {"retry_cnt", std::to_string(retry_cnt)}};
    const auto timeout_us = decode::ack_timeout_us(timeout_code);
    if (!timeout_us) {
        f.summary = fmt::format("round trip {}; local ACK timeout off (code 0): an RC QP waits for an ACK forever",
                                duration(rtt_us));
        return f;
    }
    f.seen.emplace_back("timeout_us", fmt::format("{:.3f}", *timeout_us));
    if (rtt_us < *timeout_us) {
        f.summary = fmt::format("round trip {} within the local ACK timeout {} (code {}, {:.0f}x the round trip)",
                                duration(rtt_us), duration(*timeout_us), timeout_code, *timeout_us / rtt_us);
        return f;
    }
    f.status = Status::warn;
    const auto gives_up = decode::retry_exceeded_wait_us(timeout_code, retry_cnt);
    f.summary = fmt::format("round trip {} is longer than the local ACK timeout {} (code {}): an RC QP retransmits "
                            "before any ACK can arrive{}",
                            duration(rtt_us), duration(*timeout_us), timeout_code,
                            gives_up ? fmt::format(", and fails with RETRY_EXC_ERR after {} retries ({})", retry_cnt,
                                                   duration(*gives_up))
                                     : std::string());
    f.why = "every message is sent again before its ACK is back: the link carries duplicates, and a QP whose "
            "retries run out ends in ERR though the peer answered";
    f.fix = fmt::format("give the QPs an ACK timeout of code {} or more (4.096 us x 2^code at least twice the round "
                        "trip): ibv_qp_attr.timeout, 'qpscope qp modify --qp-timeout', or the application's setting",
                        code_for(2 * rtt_us));
    return f;
}

Finding check_path_mtu(const std::vector<MtuProbe>& given, std::uint32_t sender_mtu, std::uint32_t receiver_mtu,
                       std::uint32_t header_bytes)
{
    std::vector<MtuProbe> probes = given;
    std::sort(probes.begin(), probes.end(), [](const MtuProbe& a, const MtuProbe& b) { return a.bytes < b.bytes; });
    const auto whole = [](const MtuProbe& p) { return p.sent > 0 && p.arrived == p.sent; };
    const auto none = [](const MtuProbe& p) { return p.sent > 0 && p.arrived == 0; };
    Finding f;
    f.id = "path.mtu";
    for (const auto& p : probes)
        f.seen.emplace_back(fmt::format("bytes_{}", p.bytes), fmt::format("{} of {} arrived", p.arrived, p.sent));
    // A hop that carries less than a size drops every message of it and of
    // every larger size: the first size of which none arrived, with none of
    // the larger ones arriving either. Anything else lost is loss.
    auto hole = probes.end();
    for (auto it = probes.begin(); it != probes.end(); ++it)
        if (none(*it) && std::all_of(it, probes.end(), none)) {
            hole = it;
            break;
        }
    if (hole == probes.begin() && hole != probes.end()) {
        f.status = Status::fail;
        f.summary = fmt::format("no size arrived (the smallest, {} bytes: 0 of {}): RoCE packets do not reach the "
                                "peer",
                                hole->bytes, hole->sent);
        f.why = "RDMA traffic cannot cross this path at any size, while the TCP exchange did";
        f.fix = "look for UDP port 4791 dropped on the way or at the peer (a firewall, an ACL), and at the peer's "
                "RDMA device and address";
        return f;
    }
    if (hole != probes.end()) {
        const std::uint32_t fits = (hole - 1)->bytes;
        f.status = Status::fail;
        if (hole->bytes > receiver_mtu) {
            f.summary = fmt::format("{} bytes arrive, {} do not (0 of {}): the receiver's port runs an active MTU "
                                    "of {}, below the sender's {}",
                                    fits, hole->bytes, hole->sent, receiver_mtu, sender_mtu);
            f.why = "the two ports run different MTUs: a connection takes the lower one, but anything sized for "
                    "the higher one (UD messages, a QP given the sender's MTU) is dropped at the receiver";
            f.fix = fmt::format("give both netdevs the same MTU (ip link set DEV mtu N on the receiver; 'qpscope "
                                "doctor' there names the N for an active MTU of {}), or keep to {} bytes",
                                sender_mtu, fits);
            return f;
        }
        f.summary = fmt::format("{} bytes arrive, {} do not (0 of {}): something between here and there carries "
                                "less than {} + {} header bytes",
                                fits, hole->bytes, hole->sent, hole->bytes, header_bytes);
        f.why = fmt::format("both ports run an active MTU of {} or more: RDMA messages cut into packets of that "
                            "size are dropped on the way, so small messages pass and large ones never complete",
                            std::min(sender_mtu, receiver_mtu));
        f.fix = fmt::format("lower the path MTU to {} (the QPs' path_mtu, e.g. --mtu {}, or both netdevs' MTU: "
                            "'qpscope doctor' names the one for it), or raise the MTU of the hop that drops them to "
                            "at least {} (an RC write's headers; a UD message's are smaller)",
                            fits, fits, hole->bytes + header_bytes);
        return f;
    }
    const auto partial = std::find_if_not(probes.begin(), probes.end(), whole);
    if (partial != probes.end()) {
        f.status = Status::warn;
        f.summary = fmt::format("{} bytes: {} of {} arrived: loss on the path, not its MTU (a hole in the MTU drops "
                                "every message of a size)",
                                partial->bytes, partial->arrived, partial->sent);
        f.why = "packets are lost on the way; RC retransmits them, at the cost of the ACK timeout each time";
        f.fix = "see the loss and the error counters on both sides ('qpscope doctor' on each host)";
        return f;
    }
    f.summary = fmt::format("every size arrived, up to {} bytes (the sender's active MTU {})",
                            probes.empty() ? 0 : probes.back().bytes, sender_mtu);
    return f;
}

Finding check_port_mtus(std::string_view peer, std::uint32_t here, std::uint32_t there)
{
    Finding f;
    f.id = "path.port_mtu";
    f.seen = {{"here", std::to_string(here)}, {"peer", std::to_string(there)}};
    if (here == there) {
        f.summary = fmt::format("both ports run an active MTU of {}", here);
        return f;
    }
    f.status = Status::warn;
    f.summary = fmt::format("the ports run different active MTUs: here {}, {} {}: a connection runs at {}", here, peer,
                            there, std::min(here, there));
    f.why = "RDMA needs one MTU on the whole path: a QP or a UD message sized for the higher one is dropped at the "
            "lower side or on a hop that carries less, and the side with the higher MTU never learns why";
    f.fix = fmt::format("give both netdevs the same MTU ('qpscope doctor' on each host names the netdev MTU for an "
                        "active MTU of {}), or set the applications' path MTU to {}",
                        std::max(here, there), std::min(here, there));
    return f;
}

namespace {

// What path.roce and link.roce say about UDP 4791.
constexpr std::string_view roce_udp_why =
    "RoCE v2 travels in UDP to port 4791, apart from the TCP exchange: a firewall, an ACL or a filter that passes "
    "TCP and drops it leaves every RDMA connection unable to send, so QPs retry until RETRY_EXC_ERR (or forever, "
    "with retry_cnt 7 on some drivers)";
constexpr std::string_view roce_udp_fix =
    "allow UDP port 4791 both ways on the hosts' firewalls (nft list ruleset, iptables -S) and on the way (switch "
    "ACLs, security groups), and check the receiver's RDMA device is on the netdev that owns its address (qpscope "
    "ports there)";

}  // namespace

Finding check_roce_reaches(const RoceReach& r, std::uint16_t tcp_port)
{
    Finding f;
    f.id = "path.roce";
    f.seen = {{"direction", r.direction}, {"sent", std::to_string(r.sent)}, {"arrived", std::to_string(r.arrived)}};
    std::string counted;
    if (r.sender_packets && r.receiver_packets) {
        f.seen.emplace_back("sender_packets", std::to_string(*r.sender_packets));
        f.seen.emplace_back("receiver_packets", std::to_string(*r.receiver_packets));
        counted = fmt::format(" (the sender's port counted {} RoCE packets out, the receiver's {} in)",
                              *r.sender_packets, *r.receiver_packets);
    }
    if (r.sent == 0 || r.arrived > 0) {
        f.summary = fmt::format("{}: RoCE v2 packets arrive ({} of {} messages)", r.direction, r.arrived, r.sent);
        return f;
    }
    f.status = Status::fail;
    f.summary = fmt::format("{}: TCP {} answers, RoCE packets do not arrive (0 of {} messages){}: UDP 4791 "
                            "dropped on the way or at the receiver",
                            r.direction, tcp_port, r.sent, counted);
    f.why = std::string(roce_udp_why);
    f.fix = std::string(roce_udp_fix);
    return f;
}

Finding check_stalled_run(std::string_view peer, const kernel::PacketCounts& here, const kernel::PacketCounts& there,
                          std::uint16_t tcp_port)
{
    Finding f;
    f.id = "link.roce";
    const auto text = [](const std::optional<std::uint64_t>& n) { return n ? std::to_string(*n) : std::string("?"); };
    f.seen = {{"here_sent", text(here.sent)},
              {"here_received", text(here.received)},
              {"peer_sent", text(there.sent)},
              {"peer_received", text(there.received)}};
    if (!here.sent || !here.received || !there.sent || !there.received) {
        f.status = Status::skipped;
        f.summary = "the RoCE packet counters of one side are unknown: where packets were lost is not known";
        return f;
    }
    const auto blame = [&](std::string summary, std::string where) {
        f.status = Status::fail;
        f.summary = fmt::format("{}, while the TCP exchange on port {} answered: UDP 4791 dropped on the way or at "
                                "{}",
                                summary, tcp_port, where);
        f.why = std::string(roce_udp_why);
        f.fix = fmt::format("{}; 'qpscope path' measures each way", roce_udp_fix);
        return f;
    };
    if (*here.sent > 0 && *there.received == 0)
        return blame(fmt::format("here sent {} RoCE packets since the run began, {} received none", *here.sent, peer),
                     std::string(peer));
    if (*there.sent > 0 && *here.received == 0)
        return blame(fmt::format("{} sent {} RoCE packets since the run began, here received none", peer, *there.sent),
                     "this host");
    f.summary = fmt::format("RoCE packets crossed both ways since the run began (here {} out, {} in; {} {} out, {} "
                            "in): the path carried them",
                            *here.sent, *here.received, peer, *there.sent, *there.received);
    return f;
}

Finding check_link_changes(std::string_view peer, const kernel::LinkState& here_start, const kernel::LinkState& here_now,
                           const kernel::LinkState& there_start, const kernel::LinkState& there_now)
{
    Finding f;
    f.id = "link.carrier";
    const auto rise = [](const std::optional<std::uint64_t>& a,
                         const std::optional<std::uint64_t>& b) -> std::optional<std::uint64_t> {
        if (a && b && *b >= *a)
            return *b - *a;
        return std::nullopt;
    };
    struct Side {
        std::optional<std::uint64_t> downed, carrier;
        bool known() const { return downed || carrier; }
        bool went_down() const { return downed.value_or(0) > 0 || carrier.value_or(0) > 0; }
    };
    const auto side = [&](const kernel::LinkState& a, const kernel::LinkState& b) {
        return Side{rise(a.link_downed, b.link_downed),
                    a.netdev == b.netdev ? rise(a.carrier_changes, b.carrier_changes) : std::nullopt};
    };
    const Side here = side(here_start, here_now), there = side(there_start, there_now);
    const auto text = [](const std::optional<std::uint64_t>& n) { return n ? std::to_string(*n) : std::string("?"); };
    f.seen = {{"here_netdev", here_now.netdev},
              {"here_link_downed", text(here.downed)},
              {"here_carrier_changes", text(here.carrier)},
              {"peer_netdev", there_now.netdev},
              {"peer_link_downed", text(there.downed)},
              {"peer_carrier_changes", text(there.carrier)}};
    if (!here.known() && !there.known()) {
        f.status = Status::skipped;
        f.summary = "neither side's link counters are known";
        return f;
    }
    const auto named = [](const std::string& who, const kernel::LinkState& now, const Side& s) {
        const std::string link = now.netdev.empty() ? std::string("port") : now.netdev;
        std::vector<std::string> counts;
        if (s.downed.value_or(0) > 0)
            counts.push_back(fmt::format("link_downed +{}", *s.downed));
        if (s.carrier.value_or(0) > 0)
            counts.push_back(fmt::format("carrier changes +{}", *s.carrier));
        return fmt::format("{} {} went down during the run ({})", who, link, fmt::join(counts, ", "));
    };
    std::vector<std::string> down;
    if (here.went_down())
        down.push_back(named("here", here_now, here));
    if (there.went_down())
        down.push_back(named(fmt::format("{}'s", peer), there_now, there));
    if (down.empty()) {
        f.summary = "neither side's link went down during the run";
        return f;
    }
    f.status = Status::fail;
    f.summary = fmt::format("{}: RDMA traffic stopped with it and did not resume in time", fmt::join(down, ", and "));
    f.why = "while a link is down every packet on it is lost; RC QPs send again after each ACK timeout (and end "
            "in RETRY_EXC_ERR once their retries run out), and once it is back up the route and the neighbour "
            "entry must be found again before anything crosses";
    f.fix = "look at the link's history (ip -s link show DEV, ethtool DEV, dmesg | grep -i link) and the switch "
            "port's log: a flapping cable, transceiver or port; give runs a --timeout longer than a flap";
    return f;
}

Finding check_loss(std::string_view direction, std::uint32_t sent, std::uint32_t arrived)
{
    Finding f;
    f.id = "path.loss";
    f.seen = {{"direction", std::string(direction)}, {"sent", std::to_string(sent)}, {"arrived", std::to_string(arrived)}};
    if (sent == 0) {
        f.status = Status::skipped;
        f.summary = fmt::format("{}: no burst sent", direction);
        return f;
    }
    const std::uint32_t lost = sent > arrived ? sent - arrived : 0;
    const double rate = 100.0 * lost / sent;
    f.seen.emplace_back("loss_percent", fmt::format("{:.2f}", rate));
    if (lost == 0) {
        f.summary = fmt::format("{}: no loss ({} of {} UD messages arrived)", direction, arrived, sent);
        return f;
    }
    f.status = Status::warn;
    f.summary = fmt::format("{}: {:.1f} % loss ({} of {} UD messages lost)", direction, rate, lost, sent);
    f.why = "RC retransmits every lost packet only after its ACK timeout, and RoCE's lossless class (PFC) is "
            "meant to lose none: latency tails and throughput fall with each loss, and a QP whose retries run out "
            "ends in RETRY_EXC_ERR";
    f.fix = "look at the error counters of both sides (below, and 'qpscope doctor' on each host), the links and "
            "cables on the way, and whether PFC is on for the traffic class used";
    return f;
}

Finding check_traffic_class(std::string_view direction, int sent, std::optional<int> received)
{
    Finding f;
    f.id = "path.traffic_class";
    f.seen = {{"direction", std::string(direction)}, {"sent", std::to_string(sent)}};
    if (!received) {
        f.status = Status::skipped;
        f.summary = fmt::format("{}: no traffic class seen (nothing arrived with an IP header)", direction);
        return f;
    }
    f.seen.emplace_back("received", std::to_string(*received));
    const auto change = decode::traffic_class_change(sent, *received);
    if (!change) {
        f.summary = fmt::format("{}: {} arrived as sent", direction, decode::traffic_class_text(*received));
        return f;
    }
    f.status = Status::warn;
    f.summary = fmt::format("{}: {}", direction, *change);
    f.why = "the switches' QoS maps DSCP to a priority: traffic re-marked on the way leaves the class configured "
            "for it (the lossless one, with PFC and ECN), and travels lossy or unmarked";
    f.fix = "trust DSCP on the way (the switch ports' QoS trust mode and DSCP map), or send with the class the "
            "network expects (--tclass; NCCL_IB_TC, UCX_IB_TRAFFIC_CLASS, the RDMA device's default_roce_tos)";
    return f;
}

namespace {

[[noreturn]] void bad_path_term(std::string_view term)
{
    throw UsageError(fmt::format("--expect {}: expected {}, several joined by commas (e.g. mtu>=4096,loss<=0,rtt<=20us)",
                                 term, path_expect_forms));
}

// The number at the start of `text` and what follows it.
std::pair<double, std::string_view> number_and_unit(std::string_view term, std::string_view text)
{
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || !(value >= 0) || !std::isfinite(value))
        bad_path_term(term);
    return {value, std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end))};
}

}  // namespace

PathExpect parse_path_expect(std::string_view text)
{
    PathExpect e;
    for (const std::string& piece : util::split(text, ',')) {
        const std::string_view term = util::trim(piece);
        if (term.substr(0, 5) == "mtu>=") {
            const auto [v, unit] = number_and_unit(term, term.substr(5));
            if (!unit.empty() || !decode::mtu_from_bytes(static_cast<std::uint32_t>(v)) || v != std::floor(v))
                throw UsageError(fmt::format("--expect {}: the MTU must be one of 256, 512, 1024, 2048, 4096", term));
            e.mtu = static_cast<std::uint32_t>(v);
        } else if (term.substr(0, 6) == "loss<=") {
            const auto [v, unit] = number_and_unit(term, term.substr(6));
            if (!(unit.empty() || unit == "%") || v > 100)
                bad_path_term(term);
            e.loss_percent = v;
        } else if (term.substr(0, 5) == "rtt<=") {
            const auto [v, unit] = number_and_unit(term, term.substr(5));
            const double factor = unit == "ns" ? 1e-3 : unit == "us" ? 1.0 : unit == "ms" ? 1e3 : unit == "s" ? 1e6 : -1;
            if (factor < 0 || v <= 0)
                bad_path_term(term);
            e.rtt_us = v * factor;
        } else {
            bad_path_term(term);
        }
    }
    return e;
}

std::vector<Finding> check_path_expect(const PathExpect& e, const PathMeasured& m)
{
    std::vector<Finding> out;
    const auto term = [&](std::string text, std::optional<double> measured, std::string shown, bool met) {
        Finding f;
        f.id = "path.expect";
        f.seen = {{"expect", text}, {"measured", measured ? shown : "not measured"}};
        if (measured && met) {
            f.summary = fmt::format("{}: {}", text, shown);
        } else {
            f.status = Status::fail;
            f.summary = measured ? fmt::format("{} missed: {}", text, shown) : fmt::format("{}: not measured", text);
            f.why = "the site expects this of the path (--expect)";
            f.fix = "see the other findings of this report for the cause";
        }
        out.push_back(std::move(f));
    };
    if (e.mtu)
        term(fmt::format("mtu>={}", *e.mtu), m.mtu ? std::optional<double>(*m.mtu) : std::nullopt,
             fmt::format("{} bytes arrive whole", m.mtu.value_or(0)), m.mtu && *m.mtu >= *e.mtu);
    if (e.loss_percent)
        term(fmt::format("loss<={}%", *e.loss_percent), m.loss_percent,
             fmt::format("{:.2f} % lost", m.loss_percent.value_or(0)),
             m.loss_percent && *m.loss_percent <= *e.loss_percent);
    if (e.rtt_us)
        term(fmt::format("rtt<={}", decode::human_duration_us(*e.rtt_us)), m.rtt_us,
             fmt::format("round trip {}", decode::human_duration_us(m.rtt_us.value_or(0))),
             m.rtt_us && *m.rtt_us <= *e.rtt_us);
    return out;
}

}  // namespace qps::health
