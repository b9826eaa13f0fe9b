// Helpers for the out-of-band exchange tests: raw TCP peers on loopback.
#pragma once

#include <arpa/inet.h>
#include <chrono>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

#include "src/net/channel.hpp"
#include "src/net/messages.hpp"
#include "unit/util.hpp"

namespace qps::net::test {

using qps::test::contains;
using qps::test::hang_guard;
using qps::test::ThreadTime;
using qps::test::thrown;

using Clock = std::chrono::steady_clock;

inline long ms_since(Clock::time_point start)
{
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

// Takes whatever bytes wait in `fd`'s socket, without waiting; returns how many.
inline std::size_t take_waiting(int fd)
{
    std::size_t taken = 0;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0;)
        taken += static_cast<std::size_t>(n);
    return taken;
}

// A blocking TCP socket connected to 127.0.0.1:port: a peer that sends
// whatever bytes a test wants.
class RawPeer {
public:
    explicit RawPeer(std::uint16_t port)
    {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(fd_ >= 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    }
    ~RawPeer() { close(); }
    RawPeer(const RawPeer&) = delete;
    RawPeer& operator=(const RawPeer&) = delete;

    void write(const std::string& bytes) const
    {
        REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
    }
    void close()
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }
    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

// A server-side Channel and the raw client connected to it.
struct RawPair {
    Listener listener{0};
    RawPeer raw{listener.port()};
    Channel server = listener.accept(hang_guard);
};

inline std::string be32(std::uint32_t v)
{
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
}

// A frame with the magic and a correct length around body.
inline std::string frame_of(const std::string& body)
{
    return std::string("QPSX") + be32(static_cast<std::uint32_t>(body.size())) + body;
}

// A ping-pong client's hello of this exchange version, as its body's text.
inline std::string this_version_hello()
{
    return to_message(Hello{oob_version, "qpscope", "ping-pong", "client"}).dump();
}

}  // namespace qps::net::test
