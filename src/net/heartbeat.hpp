// Signs of life on the out-of-band connection while a test runs.
//
// During a run the two sides talk over RDMA only and the TCP connection is
// quiet until one side is done. A peer process that is stopped (SIGSTOP),
// hung, swapped out or held in a debugger keeps that connection open, and
// for RDMA writes and reads its kernel even goes on completing our work
// requests. So while a run lasts each side sends a heartbeat frame,
// {"type":"alive"}, every interval (a quarter of the smaller of the two
// sides' --timeout, 50 ms to 1 s: each side's goes with its parameters),
// and a side that hears none for its own --timeout ends the run: the peer
// stopped answering, the connection still open.
// Heartbeats carry nothing else; Channel::receive skips them wherever they
// arrive, so a run's last ones never disturb the exchange after it.
//
// One thread looks (the crew's coordinator, src/perf/crew.hpp, or the loop
// of a ping-pong run of one pair through its watchdog); another
// thread that sends on the same socket during the run (the client's
// announcement) goes through exclusive(), so frames never interleave.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace qps::net {

// What this side's TCP says of a connection (TCP_INFO, SIOCOUTQNSD):
// segments sent and not yet acknowledged, how many times the oldest was
// sent again (0 once it is acknowledged), the retransmission timeout, and
// the bytes queued that it could not send yet.
struct TcpState {
    std::uint32_t unacked = 0, retransmits = 0, rto_ms = 0;
    std::uint32_t unsent_bytes = 0;
};
std::optional<TcpState> tcp_state(int fd);

// Why a peer went silent, from what TCP says: its segments unacknowledged
// and sent again (the path is cut, or the peer's host is down), nothing
// in flight but bytes that could not be sent (no route: this host's link
// is down), or everything acknowledged (the host answers, the process
// does not), or unknown.
std::string silence_text(std::string_view peer, std::chrono::milliseconds limit, const std::optional<TcpState>& tcp);
// What this side's TCP says of the connection, in a few words:
//   "this side's TCP to it has 2 segments unacknowledged, sent again 5 times"
//   "this side's TCP cannot send to it (240 bytes waiting, none in flight)"
//   "this side's TCP has nothing unacknowledged and nothing waiting"
std::string tcp_text(const std::optional<TcpState>& tcp);

class PeerWatch {
public:
    using Clock = std::chrono::steady_clock;

    // fd: the exchange's connected socket; peer: its name for messages.
    // The peer is judged by silence_limit (this side's --timeout); the
    // heartbeats are paced by beat_limit, the smaller of both sides'
    // (Exchange::beat_limit), so a peer with a shorter limit hears this side
    // often enough.
    PeerWatch(int fd, std::string peer, std::chrono::milliseconds silence_limit,
              std::chrono::milliseconds beat_limit);
    PeerWatch(int fd, std::string peer, std::chrono::milliseconds silence_limit)
        : PeerWatch(fd, std::move(peer), silence_limit, silence_limit)
    {
    }

    enum class Peer {
        running,  // heard within the limit, nothing else waiting
        done,     // another message waits, or the peer closed or reset the connection: the next receive says which
        silent,   // no heartbeat within the silence limit
    };
    // Sends a heartbeat when one is due and consumes the peer's. Never
    // blocks, but for the rest of a heartbeat the socket took only in part
    // (then at most the silence limit).
    Peer look();
    // Sends a heartbeat when one is due, and takes nothing: for a side whose
    // peer is done while this side still runs (the end of a bidirectional bw).
    void keep_alive();

    // How long the looking thread may sleep between two looks.
    std::chrono::milliseconds interval() const { return interval_; }
    int fd() const { return fd_; }
    // "the peer 192.0.2.1:45678 stopped answering: no heartbeat for 3000 ms,
    //  the connection still open and its kernel acknowledging this side's
    //  TCP: its process is stopped, hung or swapped out" (silence_text)
    std::string silence_reason() const;

    // Runs f, a send on the same socket from another thread, between heartbeats.
    template <class F>
    void exclusive(F&& f)
    {
        const std::lock_guard lock(send_mutex_);
        f();
    }

    PeerWatch(const PeerWatch&) = delete;
    PeerWatch& operator=(const PeerWatch&) = delete;

private:
    void beat(Clock::time_point now);
    bool take_heartbeats();  // false: something else waits, or the connection ended

    int fd_;
    std::string peer_;
    std::chrono::milliseconds limit_, interval_;
    Clock::time_point last_heard_, next_beat_;
    bool stuck_ = false;  // a heartbeat sent in part could not be finished
    std::mutex send_mutex_;
};

// The time between two heartbeats for a silence limit: limit / 4 within 50 ms .. 1 s.
std::chrono::milliseconds heartbeat_interval(std::chrono::milliseconds silence_limit);

// The bytes of one heartbeat frame (always the same).
const std::string& heartbeat_frame();

}  // namespace qps::net
