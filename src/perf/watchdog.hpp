// The hot loops' watchdog, shared by ping-pong and bw: looked at every few
// thousand empty polls (never per message), it ends a run whose peer went
// silent, that was interrupted (SIGINT/SIGTERM), or whose out-of-band
// socket became readable (the peer finished or went away). Given the
// PeerWatch, it also keeps the heartbeats going itself: a run without the
// crew's coordinator thread (one ping-pong pair, src/ops/ping_pong.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <poll.h>
#include <string>

#include "src/net/heartbeat.hpp"
#include "src/net/interrupt.hpp"
#include "src/perf/clock.hpp"

namespace qps::perf {

// Empty polls between two looks at the clock and the sockets.
inline constexpr std::uint32_t polls_per_check = 4096;

// True when `fd` has data or a hang-up waiting (never blocks; -1: false).
inline bool fd_readable(int fd)
{
    if (fd < 0)
        return false;
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    return ::poll(&p, 1, 0) > 0;
}

class Watchdog {
public:
    // oob_fd -1: the socket is not watched. peer: looked at in its place
    // (heartbeats sent and taken once a millisecond at most).
    Watchdog(const Clock& clock, std::chrono::milliseconds silence_limit, int oob_fd, net::PeerWatch* peer = nullptr)
        : clock_(clock), oob_fd_(oob_fd), peer_(peer)
    {
        limit_ticks_ = static_cast<std::uint64_t>(
            std::chrono::duration<double, std::nano>(silence_limit).count() * clock.info().ticks_per_ns);
        look_ticks_ = static_cast<std::uint64_t>(1e6 * clock.info().ticks_per_ns);
        last_ = clock.now();
    }

    // What check() returns when nothing completed within the limit (compared
    // by address: this side's own stall, not the peer's word; is_stall()):
    // without the PeerWatch, what the peer does is not known here (a silent
    // peer is the coordinator's to name); with it, and the peer's heartbeats
    // heard within the limit, the peer's process runs and this side's work
    // requests are what stopped.
    static constexpr const char* stalled_reason = "no completion within the timeout";
    static constexpr const char* stalled_heard_reason =
        "no completion within the timeout while the peer's heartbeats kept arriving: this side's work requests "
        "stopped completing, not the peer's process";
    static bool is_stall(const char* reason) { return reason == stalled_reason || reason == stalled_heard_reason; }
    // What check() returns when the peer's socket has its next message or
    // ended (a server in duration mode takes it as the normal end).
    static constexpr const char* finished_reason = "the peer finished or closed the out-of-band connection";

    // `progress`: messages completed so far. Returns a reason to stop, or nullptr.
    // Never inlined: it is asked by the clock, not by the message, and
    // bench/cost finds it by name to leave it out of a message's count.
    [[gnu::noinline]] const char* check(std::uint64_t progress)
    {
        const std::uint64_t now = clock_.now();
        if (progress != progress_) {
            progress_ = progress;
            last_ = now;
        } else if (now - last_ > limit_ticks_) {
            // A silent peer is named as such, as the crew's coordinator would;
            // one still heard is not called silent.
            if (peer_) {
                const char* peer = look_peer();
                if (peer == lost_.c_str())
                    return lost_.c_str();
                if (!peer)
                    return stalled_heard_reason;
            }
            return stalled_reason;
        }
        if (net::interrupt_pending())
            return "interrupted";
        // The socket costs a system call: looked at once a millisecond at
        // most, so a fast loop does not pay it every few thousand polls.
        if (now - last_look_ < look_ticks_)
            return nullptr;
        last_look_ = now;
        if (peer_)
            return look_peer();
        if (fd_readable(oob_fd_))
            return finished_reason;
        return nullptr;
    }

    // Why the peer was lost (its silence, in the PeerWatch's words), or "".
    const std::string& lost() const { return lost_; }
    // The clock's ticks in a millisecond: the least time between two looks
    // at the socket or the peer (a loop that makes progress without empty
    // polls asks every few of these to keep the heartbeats going).
    std::uint64_t look_ticks() const { return look_ticks_; }

    // Restarts the silence limit (a new phase begins).
    void reset() { last_ = clock_.now(); }

private:
    const char* look_peer()
    {
        switch (peer_->look()) {
        case net::PeerWatch::Peer::running:
            return nullptr;
        case net::PeerWatch::Peer::done:
            return finished_reason;
        case net::PeerWatch::Peer::silent:
            lost_ = peer_->silence_reason();
            return lost_.c_str();
        }
        return nullptr;
    }

    const Clock& clock_;
    int oob_fd_;
    net::PeerWatch* peer_;
    std::string lost_;
    std::uint64_t limit_ticks_ = 0, last_ = 0, progress_ = ~0ull;
    std::uint64_t look_ticks_ = 0, last_look_ = 0;
};

}  // namespace qps::perf
