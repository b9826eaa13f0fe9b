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
#include "src/net/channel.hpp"
#include "src/net/heartbeat.hpp"

namespace qps::ops {

// Once a run has ended, each side's wait for its peer's word (its evidence,
// its results, why it ended the run) follows the heartbeat's rule: --timeout
// without a byte from the peer (net::Wait::silence), so a word still in
// flight behind TCP's retransmissions, or the heartbeats of a peer still in
// its loop, keep this side waiting, and only a silent peer ends the wait.
// A peer already silent for --timeout (the heartbeat's limit ran out) gets
// this long for a first byte, then the same rule.
inline constexpr std::chrono::milliseconds lost_peer_wait{1000};

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
// Otherwise, when the peer's evidence came after all (`theirs`, its answer
// to this side's "stalled", or its results: a peer called silent under load
// whose TCP still delivers), it is judged as a stall's is: where RoCE
// packets stopped (link.roce) follows the lost peer's words, and true. Else
// `reason` stays (the TCP-based wording, exit 3) and false: whichever timer
// ended the run, the same evidence decides.
//   "here eth0 went down during the run (link_downed +1): RDMA traffic
//    stopped with it and did not resume in time; then the peer 192.0.2.1:
//    18615 stopped answering: no heartbeat for 10000 ms, ...; fix: ..."
bool name_lost_peer(std::string& reason, std::string_view peer_host, const Evidence& mine,
                    const Json& theirs = Json::object(), std::uint16_t tcp_port = net::default_port);

// What a side says when its peer signalled the end of the run (its message
// began to arrive, or it closed the connection) and the peer's word (why it
// ended, its evidence) did not come within the wait (`waited`, of silence):
// that the peer ended it, what the wait met (`error`), and this side's TCP.
//   "the peer 192.0.2.2:18615 ended the run, but its reason did not arrive
//    within 10000 ms without a byte (exchange with ...: connection reset by
//    the peer while we waited for the \"results\" message); this side's TCP
//    has nothing unacknowledged and nothing waiting"
std::string peer_word_missing(std::string_view peer, std::chrono::milliseconds waited, std::string_view error,
                              const std::optional<net::TcpState>& tcp);

}  // namespace qps::ops
