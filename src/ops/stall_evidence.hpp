// Where a stalled two-sided run (ping-pong, bw) lost its RoCE packets:
// each side reads its port's packet counters when the run begins, and what
// rose since travels to the peer (in ping-pong's results, or in bw's
// "stalled" message, src/net/exchange.hpp); link.roce (src/health/
// path_checks.hpp) judges the two.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/json.hpp"
#include "src/kernel/sysfs.hpp"

namespace qps::perf {

// How long a stalled side waits for its peer's counts (the peer meets the
// message at its next step: the end of its loop, within a second).
inline constexpr std::chrono::milliseconds stall_answer_wait{3000};

// The RoCE packets of a side since the run began, as they travel:
// {"roce_packets":{"sent":N,"received":N}} (null where unknown).
Json packets_evidence(const kernel::PacketCounts& p);
// Reads that member of a side's results or evidence (unknown counts where
// it is missing: a peer that does not send them).
kernel::PacketCounts packets_from(const Json& evidence);

// One side's port, counted from the run's start.
class PacketWatch {
public:
    PacketWatch(std::string device, std::uint32_t port);
    // What the port counted since the watch began.
    kernel::PacketCounts since_start() const;

private:
    std::string device_;
    std::uint32_t port_;
    kernel::PacketCounts at_start_;
};

// The error line that names where RoCE packets stopped, when the two
// sides' counts show it (link.roce failed); nullopt when they crossed or
// are unknown. peer_host: the peer's address as the exchange sees it.
std::optional<std::string> stall_on_path(std::string_view peer_host, const kernel::PacketCounts& here,
                                         const kernel::PacketCounts& there, std::uint16_t tcp_port);

}  // namespace qps::perf
