#include "src/net/heartbeat.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
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

PeerWatch::PeerWatch(int fd, std::string peer, milliseconds silence_limit, milliseconds beat_limit)
    : fd_(fd), peer_(std::move(peer)), limit_(silence_limit),
      interval_(heartbeat_interval(std::min(silence_limit, beat_limit))),
      last_heard_(Clock::now()), next_beat_(last_heard_)
{
}

std::optional<TcpState> tcp_state(int fd)
{
    tcp_info info{};
    socklen_t len = sizeof info;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
        return std::nullopt;
    int unsent = 0;
    if (::ioctl(fd, SIOCOUTQNSD, &unsent) != 0)
        unsent = 0;
    return TcpState{info.tcpi_unacked, info.tcpi_retransmits, info.tcpi_rto / 1000,
                    static_cast<std::uint32_t>(std::max(unsent, 0))};
}

std::string silence_text(std::string_view peer, milliseconds limit, const std::optional<TcpState>& tcp)
{
    const std::string head = fmt::format("the peer {} stopped answering: no heartbeat for {} ms", peer, limit.count());
    if (tcp && tcp->unacked > 0 && tcp->retransmits > 0)
        return fmt::format("{}, and this side's TCP to it goes unacknowledged ({} segment{} in flight, sent again {} "
                           "time{}, next in {} ms): nothing crosses the path to it (a link down on either side or on "
                           "the way, or its host down)",
                           head, tcp->unacked, tcp->unacked == 1 ? "" : "s", tcp->retransmits,
                           tcp->retransmits == 1 ? "" : "s", tcp->rto_ms);
    if (tcp && tcp->unacked == 0 && tcp->unsent_bytes > 0)
        return fmt::format("{}, and this side's TCP cannot send to it ({} bytes waiting, none in flight): no route to "
                           "it (this host's link or address is down)",
                           head, tcp->unsent_bytes);
    if (tcp && tcp->unacked == 0)
        return fmt::format("{}, the connection still open and its kernel acknowledging this side's TCP: its process "
                           "is stopped, hung or swapped out",
                           head);
    return fmt::format("{}, the connection still open (is it stopped, hung or swapped out?)", head);
}

std::string tcp_text(const std::optional<TcpState>& tcp)
{
    if (!tcp)
        return "this side's TCP state is unknown";
    const auto plural = [](std::uint32_t n) { return n == 1 ? "" : "s"; };
    if (tcp->unacked > 0 && tcp->retransmits > 0)
        return fmt::format("this side's TCP to it has {} segment{} unacknowledged, sent again {} time{}", tcp->unacked,
                           plural(tcp->unacked), tcp->retransmits, plural(tcp->retransmits));
    if (tcp->unacked > 0)
        return fmt::format("this side's TCP to it has {} segment{} in flight, none sent again yet", tcp->unacked,
                           plural(tcp->unacked));
    if (tcp->unsent_bytes > 0)
        return fmt::format("this side's TCP cannot send to it ({} bytes waiting, none in flight)", tcp->unsent_bytes);
    return "this side's TCP has nothing unacknowledged and nothing waiting";
}

std::string PeerWatch::silence_reason() const { return silence_text(peer_, limit_, tcp_state(fd_)); }

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
