// Bounded socket I/O: the one waiting, sending and receiving code under both
// of qpscope's length-prefixed JSON transports (the out-of-band exchange's
// Channel, net/channel.hpp, and the holder's UNIX socket,
// ops/holder_protocol.hpp). Each transport frames and words its own errors;
// this layer only moves bytes until done, the deadline, or the peer's end.
//
// Every wait also watches the interrupt pipe (interrupt.hpp): SIGINT/SIGTERM,
// where handlers are installed, end it with Interrupted naming `doing`.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace qps::net {

using IoClock = std::chrono::steady_clock;
// nullopt: no deadline (wait until ready or interrupted).
using Deadline = std::optional<IoClock::time_point>;

// Waits until fd has one of `events` (or an error or hangup) and returns
// true, or returns false once the deadline has passed (a socket ready at
// that moment still counts). SystemError when poll fails.
bool wait_for(int fd, short events, Deadline deadline, const std::string& doing);

// Sleeps until `until`, unless interrupted.
void sleep_until(IoClock::time_point until, const std::string& doing);

// How a bounded transfer ended.
enum class IoEnd {
    done,       // every byte moved
    timed_out,  // the deadline passed first
    closed,     // the peer closed the connection (receive: end of stream)
    reset,      // the peer reset it (ECONNRESET; sending: EPIPE too)
};

struct Transfer {
    std::size_t bytes = 0;  // moved before it ended
    IoEnd end = IoEnd::done;
    int err = 0;  // reset: the errno (EPIPE or ECONNRESET)
};

// Sends `bytes` on a stream socket: sends first and waits only when the
// socket buffer is full, so a small message goes out without waiting; never
// raises SIGPIPE. Any other error: SystemError("send to <who>").
Transfer send_until(int fd, std::string_view bytes, Deadline deadline, std::string_view who, const std::string& doing);

// Receives exactly `size` bytes into `data`. Any other error:
// SystemError("recv from <who>"). With `silence`, each byte received moves
// the deadline to that long after it (`deadline` then says where it ended).
Transfer receive_until(int fd, char* data, std::size_t size, Deadline deadline, std::string_view who,
                       const std::string& doing);
Transfer receive_until(int fd, char* data, std::size_t size, IoClock::time_point& deadline,
                       IoClock::duration silence, std::string_view who, const std::string& doing);

}  // namespace qps::net
