#include "src/ops/stall_evidence.hpp"

#include <utility>

#include "src/health/path_checks.hpp"

namespace qps::perf {

Json packets_evidence(const kernel::PacketCounts& p)
{
    const auto one = [](const std::optional<std::uint64_t>& n) { return n ? Json(*n) : Json(nullptr); };
    return Json{{"roce_packets", Json{{"sent", one(p.sent)}, {"received", one(p.received)}}}};
}

kernel::PacketCounts packets_from(const Json& evidence)
{
    kernel::PacketCounts p;
    if (!evidence.is_object() || !evidence.contains("roce_packets") || !evidence.at("roce_packets").is_object())
        return p;  // counters unknown to the peer
    const Json& j = evidence.at("roce_packets");
    const auto one = [&](const char* key) {
        return j.contains(key) && j.at(key).is_number_unsigned() ? std::optional<std::uint64_t>(j.at(key).get<std::uint64_t>())
                                                                  : std::nullopt;
    };
    p.sent = one("sent");
    p.received = one("received");
    return p;
}

PacketWatch::PacketWatch(std::string device, std::uint32_t port)
    : device_(std::move(device)), port_(port), at_start_(kernel::read_packet_counts(device_, port_))
{
}

kernel::PacketCounts PacketWatch::since_start() const
{
    return kernel::packets_since(at_start_, kernel::read_packet_counts(device_, port_));
}

std::optional<std::string> stall_on_path(std::string_view peer_host, const kernel::PacketCounts& here,
                                         const kernel::PacketCounts& there, std::uint16_t tcp_port)
{
    const health::Finding f = health::check_stalled_run(peer_host, here, there, tcp_port);
    if (!f.failed())
        return std::nullopt;
    return health::error_line(f);
}

}  // namespace qps::perf
