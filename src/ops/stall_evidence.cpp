#include "src/ops/stall_evidence.hpp"

#include <fmt/format.h>
#include <utility>

#include "src/finding.hpp"
#include "src/health/path_checks.hpp"

namespace qps::ops {

namespace {

Json count(const std::optional<std::uint64_t>& n) { return n ? Json(*n) : Json(nullptr); }

std::optional<std::uint64_t> count_in(const Json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j.at(key).is_number_unsigned())
        return j.at(key).get<std::uint64_t>();
    return std::nullopt;
}

}  // namespace

Json to_json(const Evidence& e)
{
    return Json{{"roce_packets", Json{{"sent", count(e.packets.sent)}, {"received", count(e.packets.received)}}},
                {"link", Json{{"netdev", e.link_now.netdev},
                              {"link_downed_start", count(e.link_start.link_downed)},
                              {"link_downed_now", count(e.link_now.link_downed)},
                              {"carrier_start", count(e.link_start.carrier_changes)},
                              {"carrier_now", count(e.link_now.carrier_changes)}}}};
}

Evidence evidence_from(const Json& j)
{
    Evidence e;
    if (!j.is_object())
        return e;
    if (j.contains("roce_packets")) {
        e.packets.sent = count_in(j.at("roce_packets"), "sent");
        e.packets.received = count_in(j.at("roce_packets"), "received");
    }
    if (j.contains("link") && j.at("link").is_object()) {
        const Json& l = j.at("link");
        if (l.contains("netdev") && l.at("netdev").is_string())
            e.link_start.netdev = e.link_now.netdev = l.at("netdev").get<std::string>();
        e.link_start.link_downed = count_in(l, "link_downed_start");
        e.link_now.link_downed = count_in(l, "link_downed_now");
        e.link_start.carrier_changes = count_in(l, "carrier_start");
        e.link_now.carrier_changes = count_in(l, "carrier_now");
    }
    return e;
}

PacketWatch::PacketWatch(std::string device, std::uint32_t port)
    : device_(std::move(device)), port_(port), at_start_(kernel::read_packet_counts(device_, port_)),
      link_at_start_(kernel::read_link_state(device_, port_))
{
}

Evidence PacketWatch::now() const
{
    return Evidence{kernel::packets_since(at_start_, kernel::read_packet_counts(device_, port_)), link_at_start_,
                    kernel::read_link_state(device_, port_)};
}

std::optional<std::string> stall_on_path(std::string_view peer_host, const Evidence& here, const Evidence& there,
                                         std::uint16_t tcp_port)
{
    const Finding link =
        health::check_link_changes(peer_host, here.link_start, here.link_now, there.link_start, there.link_now);
    if (link.failed())
        return error_line(link);
    const Finding roce = health::check_stalled_run(peer_host, here.packets, there.packets, tcp_port);
    if (roce.failed())
        return error_line(roce);
    return std::nullopt;
}

bool name_stall(std::string& reason, bool own, std::string_view peer_host, const Evidence& mine, const Json& theirs,
                std::uint16_t tcp_port)
{
    auto why = stall_on_path(peer_host, mine, evidence_from(theirs), tcp_port);
    if (!why)
        return false;
    reason = own ? fmt::format("{}: {}", reason, *why) : std::move(*why);  // what failed, then where
    return true;
}

bool name_lost_peer(std::string& reason, std::string_view peer_host, const Evidence& mine, const Json& theirs,
                    std::uint16_t tcp_port)
{
    const Evidence there = evidence_from(theirs);
    // This side's link (and the peer's, when its word came): first, whichever timer fired.
    Finding link =
        health::check_link_changes(peer_host, mine.link_start, mine.link_now, there.link_start, there.link_now);
    if (link.failed()) {
        link.summary = fmt::format("{}; then {}", link.summary, reason);
        reason = error_line(link);
        return true;
    }
    // The peer's packet counts came after all: where the packets stopped.
    const Finding roce = health::check_stalled_run(peer_host, mine.packets, there.packets, tcp_port);
    if (roce.failed()) {
        reason = fmt::format("{}: {}", reason, error_line(roce));  // what ended the run, then where
        return true;
    }
    return false;  // nothing seen: the lost peer's own wording stands
}

std::string peer_word_missing(std::string_view peer, std::chrono::milliseconds waited, std::string_view error,
                              const std::optional<net::TcpState>& tcp)
{
    return fmt::format("the peer {} ended the run, but its reason did not arrive within {} ms without a byte ({}); "
                       "{}",
                       peer, waited.count(), error, net::tcp_text(tcp));
}

}  // namespace qps::ops
