#include "src/net/deadline_io.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"

namespace qps::net {

namespace {

using std::chrono::milliseconds;

// Empties a pipe whose byte is stale (an interrupt that was cleared).
void drain(int fd)
{
    char buf[64];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
}

// The poll timeout until `until`: at least 1 ms while any time is left.
int ms_until(IoClock::time_point until)
{
    const auto left = until - IoClock::now();
    if (left <= IoClock::duration::zero())
        return 0;
    return static_cast<int>(std::clamp<std::int64_t>(std::chrono::ceil<milliseconds>(left).count(), 1, INT_MAX));
}

}  // namespace

bool wait_for(int fd, short events, Deadline deadline, const std::string& doing)
{
    const int ifd = interrupt_fd();
    for (;;) {
        throw_if_interrupted(doing);
        const int wait_ms = deadline ? ms_until(*deadline) : -1;  // 0: a last look
        pollfd p[2] = {{fd, events, 0}, {ifd, POLLIN, 0}};
        const int n = ::poll(p, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            throw SystemError("poll", errno);
        if (n > 0 && p[1].revents != 0) {
            throw_if_interrupted(doing);
            drain(ifd);
        }
        if (n > 0 && p[0].revents != 0)
            return true;
        if (deadline && IoClock::now() >= *deadline)
            return false;
    }
}

void sleep_until(IoClock::time_point until, const std::string& doing)
{
    const int ifd = interrupt_fd();
    for (;;) {
        throw_if_interrupted(doing);
        const int ms = ms_until(until);
        if (ms == 0)
            return;
        pollfd p{ifd, POLLIN, 0};
        if (::poll(&p, 1, ms) > 0) {
            throw_if_interrupted(doing);
            drain(ifd);
        }
    }
}

Transfer send_until(int fd, std::string_view bytes, Deadline deadline, std::string_view who, const std::string& doing)
{
    Transfer t;
    while (t.bytes < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + t.bytes, bytes.size() - t.bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0) {
            t.bytes += static_cast<std::size_t>(n);
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_for(fd, POLLOUT, deadline, doing)) {
                t.end = IoEnd::timed_out;
                return t;
            }
            continue;
        }
        if (errno == EPIPE || errno == ECONNRESET) {
            t.end = IoEnd::reset;
            t.err = errno;
            return t;
        }
        throw SystemError(fmt::format("send to {}", who), errno);
    }
    return t;
}

namespace {

Transfer receive_into(int fd, char* data, std::size_t size, Deadline& deadline,
                      std::optional<IoClock::duration> silence, std::string_view who, const std::string& doing)
{
    Transfer t;
    while (t.bytes < size) {
        if (!wait_for(fd, POLLIN, deadline, doing)) {
            t.end = IoEnd::timed_out;
            return t;
        }
        const ssize_t n = ::recv(fd, data + t.bytes, size - t.bytes, MSG_DONTWAIT);
        if (n == 0) {
            t.end = IoEnd::closed;
            return t;
        }
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            if (errno == ECONNRESET) {
                t.end = IoEnd::reset;
                t.err = errno;
                return t;
            }
            throw SystemError(fmt::format("recv from {}", who), errno);
        }
        t.bytes += static_cast<std::size_t>(n);
        if (silence)
            deadline = IoClock::now() + *silence;  // the peer is alive while its bytes come
    }
    return t;
}

}  // namespace

Transfer receive_until(int fd, char* data, std::size_t size, Deadline deadline, std::string_view who,
                       const std::string& doing)
{
    return receive_into(fd, data, size, deadline, std::nullopt, who, doing);
}

Transfer receive_until(int fd, char* data, std::size_t size, IoClock::time_point& deadline, IoClock::duration silence,
                       std::string_view who, const std::string& doing)
{
    Deadline d = deadline;
    const Transfer t = receive_into(fd, data, size, d, silence, who, doing);
    deadline = *d;
    return t;
}

}  // namespace qps::net
