// UD messages as probes of the path between two hosts (`qpscope path`):
// bursts of one size sent in small windows, the receives counted by size
// with the traffic class they arrived with, and a ping that the peer
// echoes, one at a time, for the round trip. Not a hot loop: every send is
// signalled and every wait is bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/verbs/link_resources.hpp"

namespace qps::perf {

// The sizes of the three kinds of message, told apart by their length on
// arrival: pings, the loss burst, and the MTU sweep's (one packet each at
// their path MTU).
inline constexpr std::uint32_t ping_bytes = 32;
inline constexpr std::uint32_t burst_bytes = 64;
inline constexpr std::uint32_t max_probe_bytes = 4096;

struct Arrivals {
    std::map<std::uint32_t, std::uint32_t> by_size;  // payload bytes (GRH excluded) -> messages
    std::optional<int> traffic_class;                // of the last message that arrived (its GRH)
    std::uint32_t failed = 0;                        // receive completions in error
};

struct Pings {
    std::uint32_t sent = 0, answered = 0;
    std::vector<double> rtt_us;  // one per answered ping
    std::string stopped;         // why the pings stopped early ("" when all were sent)
};

class UdProbe {
public:
    // `res`: connected UD resources whose buffer holds max_probe_bytes, on
    // `port` of its device.
    UdProbe(verbs::LinkResources& res, std::uint32_t port);

    // Posts receives until `n` are outstanding (at most the QP's depth).
    void top_up_receives(std::uint32_t n);
    // Sends `count` messages of `size` bytes to the peer, `window` at a
    // time, each window completed before the next. OperationError on a
    // completion in error, or on sends that did not complete within
    // `timeout` while the port's send_err rose (the host did not let them
    // out); TimeoutError when one takes longer than `timeout` otherwise.
    void send(std::uint32_t size, std::uint32_t count, std::chrono::milliseconds timeout);
    // Every receive completion there is now, counted.
    Arrivals drain();

    // The client: `count` pings, one at a time; a ping unanswered within
    // `wait` counts lost, and `give_up` lost in a row end the pings.
    Pings ping(std::uint32_t count, std::chrono::milliseconds wait, std::uint32_t give_up);
    // The server: answers each ping with its number until `stop_fd` is
    // readable (the client's next exchange message) or `limit` passed; an
    // answer whose send does not complete within `send_timeout` throws as
    // send() does. Returns the pings answered.
    std::uint32_t echo_until(int stop_fd, std::chrono::milliseconds limit, std::chrono::milliseconds send_timeout);

private:
    void post_send(std::uint32_t size);
    // Waits for `n` send completions; throws as send() says.
    void reap_sends(std::uint32_t n, std::chrono::milliseconds timeout);
    // The port's send_err now (rxe counts each packet the host's IP output
    // refused); read when a phase starts, not per message.
    std::optional<std::uint64_t> send_errors() const;
    std::uint32_t message_number() const;  // the first four payload bytes of the last arrival

    verbs::LinkResources& res_;
    std::uint32_t port_;
    std::optional<std::uint64_t> send_errors_at_start_;  // of the current phase
    std::uint32_t receives_ = 0;  // outstanding
    std::uint32_t window_ = 16;
};

}  // namespace qps::perf
