#include "src/net/channel.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

#include "src/error.hpp"
#include "src/net/deadline_io.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/resolve.hpp"
#include "src/net/messages.hpp"
#include "src/util/fd.hpp"

namespace qps::net {

namespace {

using util::Fd;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string errno_text(int err) { return fmt::format("{} ({})", errno_name(err), std::strerror(err)); }

std::string format_address(const sockaddr_storage& ss)
{
    char buf[INET6_ADDRSTRLEN] = {};
    if (ss.ss_family == AF_INET) {
        const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
        ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
        return fmt::format("{}:{}", buf, ntohs(a.sin_port));
    }
    if (ss.ss_family == AF_INET6) {
        const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
        if (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr)) {  // a dual-stack socket's IPv4 peer
            ::inet_ntop(AF_INET, &a.sin6_addr.s6_addr[12], buf, sizeof buf);
            return fmt::format("{}:{}", buf, ntohs(a.sin6_port));
        }
        ::inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof buf);
        return fmt::format("[{}]:{}", buf, ntohs(a.sin6_port));
    }
    if (ss.ss_family == AF_UNIX)
        return "local socket";
    return fmt::format("address family {}", ss.ss_family);
}

std::string peer_of(int fd)
{
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0)
        return "unknown peer";
    return format_address(ss);
}

std::string local_of(int fd)
{
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0)
        return "unknown";
    return format_address(ss);
}

void set_nodelay(int fd)
{
    // Small messages, each awaited by the peer: no Nagle delay. Not fatal
    // (AF_UNIX sockets in tests have no such option).
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// One connection attempt to one address; -1 with last_error set on failure.
// A numeric address with `port` (UsageError naming --bind otherwise).
sockaddr_storage numeric_address(const std::string& address, std::uint16_t port, socklen_t& len)
{
    sockaddr_storage ss{};
    auto& v4 = reinterpret_cast<sockaddr_in&>(ss);
    auto& v6 = reinterpret_cast<sockaddr_in6&>(ss);
    if (::inet_pton(AF_INET, address.c_str(), &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        len = sizeof v4;
    } else if (::inet_pton(AF_INET6, address.c_str(), &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        len = sizeof v6;
    } else {
        throw UsageError(
            fmt::format("{} \"{}\" is not a numeric IPv4 or IPv6 address", given(Given::bind), printable(address)));
    }
    return ss;
}

// The socket's source: `bind` (port 0), when given. A family that differs
// from the destination's is that attempt's error; an address this host does
// not have is the user's (UsageError: no retry makes it appear).
bool bind_source(int fd, const addrinfo& ai, const std::string& bind, std::string& last_error)
{
    if (bind.empty())
        return true;
    socklen_t len = 0;
    const sockaddr_storage ss = numeric_address(bind, 0, len);
    if (ss.ss_family != ai.ai_family) {
        last_error = fmt::format("the source address {} is {}, the destination {}", bind,
                                 ss.ss_family == AF_INET ? "IPv4" : "IPv6", ai.ai_family == AF_INET ? "IPv4" : "IPv6");
        return false;
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&ss), len) == 0)
        return true;
    const int err = errno;
    if (err == EADDRNOTAVAIL)
        throw UsageError(fmt::format("{} {}: no interface of this host has that address", given(Given::bind), bind));
    last_error = fmt::format("bind to {}: {}", bind, errno_text(err));
    return false;
}

int try_connect(const addrinfo& ai, Clock::time_point deadline, const std::string& doing, std::string& last_error,
                const std::string& bind)
{
    Fd fd(::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol));
    if (fd.get() < 0) {
        last_error = errno_text(errno);
        return -1;
    }
    if (!bind_source(fd.get(), ai, bind, last_error))
        return -1;
    if (::connect(fd.get(), ai.ai_addr, ai.ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            last_error = errno_text(errno);
            return -1;
        }
        if (!wait_for(fd.get(), POLLOUT, deadline, doing)) {
            last_error = "no answer (connection still in progress)";
            return -1;
        }
        int err = 0;
        socklen_t len = sizeof err;
        if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err != 0) {
            last_error = errno_text(err);
            return -1;
        }
    }
    // Retrying towards a port in the ephemeral range, the kernel may pick
    // that very port as our source and connect the socket to itself.
    if (peer_of(fd.get()) == local_of(fd.get())) {
        last_error = "connected to itself (nothing listens there)";
        return -1;
    }
    set_nodelay(fd.get());
    return fd.release();
}

std::string message_name(const Json& message)
{
    const std::string type = message_type(message);
    return type.empty() ? "a message" : fmt::format("the \"{}\" message", printable(type));
}

}  // namespace

std::string host_port(std::string_view host, std::uint16_t port)
{
    if (host.find(':') != std::string_view::npos)
        return fmt::format("[{}]:{}", printable(host), port);
    return fmt::format("{}:{}", printable(host), port);
}

// --- Channel

Channel::Channel(Channel&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), peer_(std::move(other.peer_)), broken_(other.broken_)
{
}

Channel& Channel::operator=(Channel&& other) noexcept
{
    if (this != &other) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        peer_ = std::move(other.peer_);
        broken_ = other.broken_;
    }
    return *this;
}

Channel::~Channel()
{
    if (fd_ >= 0)
        ::close(fd_);
}

Channel Channel::adopt(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        const int err = errno;
        ::close(fd);
        throw SystemError("fcntl(O_NONBLOCK)", err);
    }
    set_nodelay(fd);
    return Channel(fd, peer_of(fd));
}

Channel Channel::connect(const std::string& host, std::uint16_t port, milliseconds timeout, const std::string& bind)
{
    const auto deadline = Clock::now() + timeout;
    const std::string target = host_port(host, port);
    const std::string doing = fmt::format("connecting to {}", target);
    const std::string service = std::to_string(port);
    std::string last_error = "none";
    int attempts = 0;
    for (;;) {
        throw_if_interrupted(doing);
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_protocol = IPPROTO_TCP;
        // Within what is left of the timeout: a resolver that does not
        // answer is named as such (net/resolve.hpp), not waited for.
        std::optional<AddrInfo> found;
        try {
            found.emplace(resolve(host, service, hints,
                                  std::max(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()),
                                           milliseconds(1))));
        } catch (const TimeoutError&) {
            throw;
        } catch (const Interrupted&) {
            throw;
        } catch (const SystemError&) {
            throw;
        } catch (const OperationError& e) {  // EAI_AGAIN: tried again until the timeout
            ++attempts;
            last_error = e.what();
        }
        if (found) {
            for (const addrinfo* ai = found->get(); ai; ai = ai->ai_next) {
                ++attempts;
                if (const int fd = try_connect(*ai, deadline, doing, last_error, bind); fd >= 0)
                    return Channel(fd, peer_of(fd));
                if (Clock::now() >= deadline)
                    break;
            }
        }
        sleep_until(std::min(Clock::now() + connect_retry_interval, deadline), doing);
        if (Clock::now() >= deadline)
            throw TimeoutError(fmt::format(
                "could not connect to {} within {} ms ({} attempt{}, last: {}): is the qpscope server running there?",
                target, timeout.count(), attempts, attempts == 1 ? "" : "s", last_error));
    }
}

Channel Channel::accept_one(std::uint16_t port, milliseconds timeout, const std::string& bind)
{
    Listener listener(port, bind);
    return listener.accept(timeout);
}

void Channel::send(const Json& message, milliseconds timeout)
{
    if (broken_)
        throw OperationError(fmt::format("exchange with {}: connection unusable after an earlier error", peer_));
    const std::string frame = encode_frame(message);
    const std::string what = message_name(message);
    const auto deadline = Clock::now() + timeout;
    const std::string doing = fmt::format("sending {} to {}", what, peer_);
    // Sends first, waits only when the socket buffer is full: a small
    // message (abort()'s error after an interrupt, say) goes out at once.
    const Transfer t = send_until(fd_, frame, deadline, peer_, doing);
    switch (t.end) {
    case IoEnd::done:
        return;
    case IoEnd::timed_out:
        broken_ = t.bytes > 0;
        throw TimeoutError(fmt::format("exchange with {}: timed out after {} ms sending {} ({} of {} bytes sent): "
                                       "the peer is not reading",
                                       peer_, timeout.count(), what, t.bytes, frame.size()));
    case IoEnd::closed:
    case IoEnd::reset:
        break;
    }
    broken_ = true;
    throw TimeoutError(fmt::format("exchange with {}: the peer closed the connection while we sent {}", peer_, what));
}

void Channel::read_exact(char* data, std::size_t size, Clock::time_point& deadline, milliseconds timeout, Wait wait,
                         std::string_view expecting, std::string_view part)
{
    const bool at_start = part == "header";  // nothing of this message consumed yet
    const std::string doing = fmt::format("waiting for {} from {}", expecting, peer_);
    // Wait::silence: each byte moves the deadline (a word in flight is not a silent peer).
    const Transfer t = wait == Wait::silence ? receive_until(fd_, data, size, deadline, timeout, peer_, doing)
                                             : receive_until(fd_, data, size, deadline, peer_, doing);
    if (t.end == IoEnd::done)
        return;
    const bool nothing_yet = at_start && t.bytes == 0;  // the channel is still usable after a timeout
    if (t.end == IoEnd::timed_out && nothing_yet)
        throw TimeoutError(fmt::format("exchange with {}: nothing received {} {} ms while waiting for {}: "
                                       "the peer stopped answering, the connection still open",
                                       peer_, wait == Wait::silence ? "for" : "within", timeout.count(), expecting));
    broken_ = true;
    if (t.end == IoEnd::timed_out)
        throw TimeoutError(fmt::format("exchange with {}: timed out after {} ms{} in the middle of {} ({} of {} {} "
                                       "bytes received)",
                                       peer_, timeout.count(), wait == Wait::silence ? " without a byte" : "",
                                       expecting, t.bytes, size, part));
    if (t.end == IoEnd::reset)
        throw TimeoutError(fmt::format("exchange with {}: connection reset by the peer while we waited for {}", peer_,
                                       expecting));
    if (nothing_yet)
        throw TimeoutError(fmt::format("exchange with {}: the peer closed the connection while we waited for {}", peer_,
                                       expecting));
    throw TimeoutError(fmt::format("exchange with {}: the peer closed the connection in the middle of {} ({} of {} {} "
                                   "bytes received)",
                                   peer_, expecting, t.bytes, size, part));
}

Json Channel::receive(milliseconds timeout, std::string_view expecting, Wait wait)
{
    if (broken_)
        throw OperationError(fmt::format("exchange with {}: connection unusable after an earlier error", peer_));
    auto deadline = Clock::now() + timeout;
    for (;;) {
        std::array<std::uint8_t, frame_header_bytes> header{};
        read_exact(reinterpret_cast<char*>(header.data()), header.size(), deadline, timeout, wait, expecting,
                   "header");
        std::uint32_t len = 0;
        try {
            len = decode_frame_header(header);
        } catch (const OperationError& e) {
            broken_ = true;  // no way to find the next frame
            throw OperationError(fmt::format("exchange with {}: {}", peer_, e.what()));
        }
        std::string body(len, '\0');
        read_exact(body.data(), len, deadline, timeout, wait, expecting, "body");
        Json message;
        try {
            message = decode_frame_body(body);
        } catch (const OperationError& e) {
            throw OperationError(fmt::format("exchange with {}: {}", peer_, e.what()));
        }
        // A heartbeat of a run that just ended on the peer's side carries nothing.
        if (message_type(message) != "alive")
            return message;
    }
}

// --- Listener

Listener::Listener(std::uint16_t port, const std::string& bind)
{
    // One dual-stack IPv6 socket takes IPv4 peers too; IPv4 alone where the
    // kernel has no IPv6. With `bind`, that address's family alone.
    socklen_t bound_len = 0;
    const std::optional<sockaddr_storage> bound =
        bind.empty() ? std::nullopt : std::optional(numeric_address(bind, port, bound_len));
    bool v6 = !bound || bound->ss_family == AF_INET6;
    int raw = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (raw < 0) {
        if (errno != EAFNOSUPPORT)
            throw SystemError("socket(AF_INET6, SOCK_STREAM)", errno);
        v6 = false;
        raw = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (raw < 0)
            throw SystemError("socket(AF_INET, SOCK_STREAM)", errno);
    }
    Fd fd(raw);
    const int one = 1, zero = 0;
    if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
        throw SystemError("setsockopt(SO_REUSEADDR)", errno);
    if (v6 && !bound && ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0)
        throw SystemError("setsockopt(IPV6_V6ONLY, 0)", errno);
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (bound) {
        ss = *bound;
        len = bound_len;
    } else if (v6) {
        auto& a = reinterpret_cast<sockaddr_in6&>(ss);
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_any;
        a.sin6_port = htons(port);
        len = sizeof a;
    } else {
        auto& a = reinterpret_cast<sockaddr_in&>(ss);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        a.sin_port = htons(port);
        len = sizeof a;
    }
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        const int err = errno;
        std::string hint;
        if (err == EADDRINUSE)
            hint = "another program (or another qpscope server) listens on that port; choose another port";
        else if (err == EACCES)
            hint = "ports below 1024 need privileges; choose another port";
        else if (err == EADDRNOTAVAIL)
            throw UsageError(fmt::format("{} {}: no interface of this host has that address", given(Given::bind), bind));
        throw SystemError(bind.empty() ? fmt::format("bind to TCP port {}", port)
                                       : fmt::format("bind to {} TCP port {}", bind, port),
                          err, hint);
    }
    if (::listen(fd.get(), 8) != 0)
        throw SystemError(fmt::format("listen on TCP port {}", port), errno);
    len = sizeof ss;
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0)
        throw SystemError("getsockname", errno);
    port_ = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6&>(ss).sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in&>(ss).sin_port);
    fd_ = fd.release();
}

Listener::~Listener()
{
    if (fd_ >= 0)
        ::close(fd_);
}

Channel Listener::accept(milliseconds timeout)
{
    std::optional<Clock::time_point> deadline;
    if (timeout > milliseconds::zero())
        deadline = Clock::now() + timeout;
    const std::string doing = fmt::format("waiting for a client on TCP port {}", port_);
    for (;;) {
        if (!wait_for(fd_, POLLIN, deadline, doing))
            throw TimeoutError(fmt::format("no client connected to TCP port {} within {} ms", port_, timeout.count()));
        const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            return Channel::adopt(fd);
        // A peer that gave up between poll and accept, or a network error
        // that accept(2) says to treat like EAGAIN.
        switch (errno) {
        case EAGAIN:
#if EWOULDBLOCK != EAGAIN
        case EWOULDBLOCK:
#endif
        case EINTR:
        case ECONNABORTED:
        case EPROTO:
        case ENETDOWN:
        case ENOPROTOOPT:
        case EHOSTDOWN:
        case ENONET:
        case EHOSTUNREACH:
        case EOPNOTSUPP:
        case ENETUNREACH:
            continue;
        default:
            break;
        }
        throw SystemError(fmt::format("accept on TCP port {}", port_), errno);
    }
}

std::string host_of(const std::string& peer)
{
    std::string host = peer.substr(0, peer.rfind(':'));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return host;
}

}  // namespace qps::net
