// Where a stalled two-sided run (ping-pong, bw) lost its RoCE packets, and
// whether a link went down meanwhile: each side reads its port's packet
// counters and its netdev's carrier changes when the run begins, and what
// changed since travels to the peer (in ping-pong's results, or in bw's
// "stalled" message, src/net/exchange.hpp). link.carrier and link.roce
// (src/health/path_checks.hpp) judge the two sides together.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/json.hpp"
#include "src/kernel/sysfs.hpp"

namespace qps::perf {

// How long a stalled side waits for its peer's evidence (the peer meets the
// message at its next step: the end of its loop, within a second).
inline constexpr std::chrono::milliseconds stall_answer_wait{3000};

// One side's evidence as it travels:
//   {"roce_packets": {"sent": N, "received": N},      since the run began (null: unknown)
//    "link": {"netdev": "eth0", "link_downed_start": N, "link_downed_now": N,
//             "carrier_start": N, "carrier_now": N}}
struct Evidence {
    kernel::PacketCounts packets;  // since the run began
    kernel::LinkState link_start, link_now;
};
Json to_json(const Evidence& e);
// What a peer sent (unknown parts where members are missing or malformed:
// a peer that does not send them).
Evidence evidence_from(const Json& j);

// One side's port and netdev, watched from the run's start.
class PacketWatch {
public:
    PacketWatch(std::string device, std::uint32_t port);
    Evidence now() const;

private:
    std::string device_;
    std::uint32_t port_;
    kernel::PacketCounts at_start_;
    kernel::LinkState link_at_start_;
};

// The error line that names what stopped the run when the two sides'
// evidence shows it: a link that went down (link.carrier), else RoCE
// packets that one side sent and the other never received (link.roce);
// nullopt when neither. peer_host: the peer's address as the exchange
// sees it.
std::optional<std::string> stall_on_path(std::string_view peer_host, const Evidence& here, const Evidence& there,
                                         std::uint16_t tcp_port);

// Judges the peer's evidence as it travelled (an empty object: none came,
// this side's own alone) against this side's; when it names what stopped
// the run, `reason` says so, after this side's own failure (`own`) or in
// place of the peer's word, and true is returned.
bool name_stall(std::string& reason, bool own, std::string_view peer_host, const Evidence& mine, const Json& theirs,
                std::uint16_t tcp_port);

// A side that lost its peer (no heartbeat within --timeout, the exchange
// timed out or the connection ended) reads its own link before it speaks,
// whichever timer fired first: when its evidence shows its link went down
// during the run (link.carrier, judged on this side's counts alone, worded
// as stall_on_path words it), `reason` becomes that finding's summary, then
// the lost peer as `reason` said it, then the finding's fix, and true is
// returned: a fault of the link, exit 1, as for a completion error.
// Otherwise `reason` stays (the TCP-based wording, exit 3) and false.
//   "here eth0 went down during the run (link_downed +1): RDMA traffic
//    stopped with it and did not resume in time; then the peer 192.0.2.1:
//    18615 stopped answering: no heartbeat for 10000 ms, ...; fix: ..."
bool name_lost_peer(std::string& reason, std::string_view peer_host, const Evidence& mine);

}  // namespace qps::perf
