#include "src/net/heartbeat.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include "src/net/frame.hpp"
#include "src/net/messages.hpp"

namespace qps::net {

using std::chrono::milliseconds;

std::chrono::milliseconds heartbeat_interval(milliseconds silence_limit)
{
    return std::clamp(silence_limit / 4, milliseconds(50), milliseconds(1000));
}

const std::string& heartbeat_frame()
{
    static const std::string frame = encode_frame(alive_message());
    return frame;
}

PeerWatch::PeerWatch(int fd, std::string peer, milliseconds silence_limit)
    : fd_(fd), peer_(std::move(peer)), limit_(silence_limit), interval_(heartbeat_interval(silence_limit)),
      last_heard_(Clock::now()), next_beat_(last_heard_)
{
}

std::string PeerWatch::silence_reason() const
{
    return fmt::format("the peer {} stopped answering: no heartbeat for {} ms, the connection still open (is it "
                       "stopped, hung or swapped out?)",
                       peer_, limit_.count());
}

void PeerWatch::beat(Clock::time_point now)
{
    next_beat_ = now + interval_;
    const std::lock_guard lock(send_mutex_);
    const std::string& frame = heartbeat_frame();
    std::size_t done = 0;
    const auto deadline = now + limit_;
    while (done < frame.size()) {
        const ssize_t n = ::send(fd_, frame.data() + done, frame.size() - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // The peer has not read for a long while. Nothing sent: skip this
            // beat. Part of the frame sent: the rest must follow, or the
            // stream is no longer framed.
            if (done == 0)
                return;
            pollfd p{fd_, POLLOUT, 0};
            const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
            if (left > 0 && ::poll(&p, 1, static_cast<int>(left)) >= 0)
                continue;
            stuck_ = true;  // not read for the whole silence limit
            return;
        }
        return;  // reset or closed: take_heartbeats() sees it
    }
}

bool PeerWatch::take_heartbeats()
{
    const std::string& frame = heartbeat_frame();
    char buf[64];
    static_assert(sizeof buf >= 32);
    for (;;) {
        const ssize_t n = ::recv(fd_, buf, frame.size(), MSG_PEEK | MSG_DONTWAIT);
        if (n == 0)
            return false;  // closed
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
        if (std::memcmp(buf, frame.data(), static_cast<std::size_t>(n)) != 0)
            return false;  // another message
        if (static_cast<std::size_t>(n) < frame.size())
            return true;  // a heartbeat still arriving
        // Take it. It is in the socket already, so this cannot fail but by a reset.
        if (::recv(fd_, buf, frame.size(), MSG_DONTWAIT) != static_cast<ssize_t>(frame.size()))
            return false;
        last_heard_ = Clock::now();
    }
}

void PeerWatch::keep_alive()
{
    const auto now = Clock::now();
    if (now >= next_beat_)
        beat(now);
}

PeerWatch::Peer PeerWatch::look()
{
    const auto now = Clock::now();
    if (now >= next_beat_)
        beat(now);
    if (!take_heartbeats())
        return Peer::done;
    if (stuck_ || Clock::now() - last_heard_ > limit_)
        return Peer::silent;
    return Peer::running;
}

}  // namespace qps::net
