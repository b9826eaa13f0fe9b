// A TCP connection for the out-of-band exchange, with a deadline on every
// operation and the framing of frame.hpp.
//
// Errors name the peer and say what was going on:
//   TimeoutError (exit 3): a deadline passed, the peer closed or reset the
//     connection ("lost peer");
//   OperationError (exit 1): the peer sent something that is not a valid
//     frame (garbage, bad length, bad JSON);
//   Interrupted (an OperationError): SIGINT/SIGTERM, see interrupt.hpp;
//   UsageError (exit 2): a host name that does not resolve.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/net/frame.hpp"

namespace qps::net {

inline constexpr std::uint16_t default_port = 18615;
// Between two connection attempts of Channel::connect.
inline constexpr std::chrono::milliseconds connect_retry_interval{100};

// How a receive's timeout counts: from the call (total), or from the last
// byte received (silence: the peer is alive while its TCP delivers, its
// heartbeats or a message in flight, and only `timeout` without a byte ends
// the wait).
enum class Wait { total, silence };

class Channel {
public:
    // Client: resolves host (a name, an IPv4 or an IPv6 address) and connects,
    // retrying every connect_retry_interval until `timeout`, so the client may
    // start before the server. TimeoutError names host:port, how long it tried
    // and the last error; UsageError when the name does not resolve.
    // `bind` (a numeric address, "" = the route's): the source address.
    static Channel connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
                           const std::string& bind = "");
    // Server: listens on port (all addresses, IPv4 and IPv6), accepts one peer
    // within timeout (0: wait forever, interruptible), stops listening.
    // `bind` (a numeric address, "" = every address): where it listens.
    static Channel accept_one(std::uint16_t port, std::chrono::milliseconds timeout, const std::string& bind = "");

    // Sends one message within timeout.
    void send(const Json& message, std::chrono::milliseconds timeout);
    // Receives one message within timeout: framed, bounded, a JSON object with
    // a "type". `expecting` names what was awaited in errors ("the \"hello\"
    // message"). A deadline that passes before the first byte leaves the
    // channel usable; any other error makes it unusable. Wait::silence: the
    // timeout counts from the last byte received (heartbeats included).
    Json receive(std::chrono::milliseconds timeout, std::string_view expecting = "a message", Wait wait = Wait::total);

    // "192.0.2.1:45678", "[2001:db8::1]:45678"
    std::string peer() const { return peer_; }
    int fd() const { return fd_; }

    Channel(Channel&& other) noexcept;
    Channel& operator=(Channel&& other) noexcept;
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;
    ~Channel();

    // Wraps a connected stream socket (takes ownership); for tests and the Listener.
    static Channel adopt(int fd);

private:
    Channel(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
    void read_exact(char* data, std::size_t size, std::chrono::steady_clock::time_point& deadline,
                    std::chrono::milliseconds timeout, Wait wait, std::string_view expecting, std::string_view part);

    int fd_ = -1;
    std::string peer_;
    bool broken_ = false;
};

// A listening socket that outlives one accept: a server that keeps serving,
// or a test that binds port 0 and needs to know which port it got.
class Listener {
public:
    // `bind`: a numeric address to listen on ("" = every address).
    explicit Listener(std::uint16_t port, const std::string& bind = "");
    // The bound port (the one the kernel chose when constructed with 0).
    std::uint16_t port() const { return port_; }
    int fd() const { return fd_; }
    // Waits for one peer within timeout (0: forever); TimeoutError names the port.
    Channel accept(std::chrono::milliseconds timeout);

    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    ~Listener();

private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
};

// "host:port", with brackets around an IPv6 address.
std::string host_port(std::string_view host, std::uint16_t port);

// The address of a peer as Channel::peer() names it, without the port:
// "192.0.2.2" of "192.0.2.2:18615", "fe80::1" of "[fe80::1]:18615".
std::string host_of(const std::string& peer);

}  // namespace qps::net
