// The exchange's TCP channel on loopback: connect with retries, accept with
// a deadline or forever (interruptible), and every hostile peer ending in a
// one-line error within its deadline.
#include <algorithm>
#include <csignal>
#include <doctest/doctest.h>
#include <future>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <thread>

#include "src/error.hpp"
#include "src/net/channel.hpp"
#include "src/net/deadline_io.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/messages.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::net;
using namespace qps::net::test;
using qps::Json;
using namespace std::chrono_literals;
using qps::OperationError;
using qps::TimeoutError;
using qps::UsageError;

namespace {

// A port that nothing listens on (just released by the kernel).
std::uint16_t free_port()
{
    Listener l(0);
    return l.port();
}

bool ipv6_loopback_works()
{
    const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

}  // namespace

TEST_CASE("connect and accept on loopback; messages round-trip both ways")
{
    Listener listener(0);
    auto server = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel client = Channel::connect("127.0.0.1", listener.port(), hang_guard);
    Channel srv = server.get();
    CHECK(client.peer() == fmt::format("127.0.0.1:{}", listener.port()));
    CHECK(srv.peer().starts_with("127.0.0.1:"));
    CHECK(client.fd() >= 0);

    const Json hello{{"type", "hello"}, {"n", 1}};
    client.send(hello, 1000ms);
    CHECK(srv.receive(1000ms) == hello);
    const Json big{{"type", "results"}, {"blob", std::string(60000, 'z')}};
    srv.send(big, 1000ms);
    CHECK(client.receive(1000ms) == big);
}

TEST_CASE("connect resolves names and speaks IPv6")
{
    Listener listener(0);
    auto server = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel client = Channel::connect("localhost", listener.port(), hang_guard);
    server.get();
    if (ipv6_loopback_works()) {
        auto server6 = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
        Channel client6 = Channel::connect("::1", listener.port(), hang_guard);
        CHECK(client6.peer() == fmt::format("[::1]:{}", listener.port()));
        CHECK(server6.get().peer().starts_with("[::1]:"));
    }
    CHECK(host_port("::1", 18615) == "[::1]:18615");
    CHECK(host_port("node7", 18615) == "node7:18615");
}

TEST_CASE("the client may start first: connect retries until the listener appears")
{
    const std::uint16_t port = free_port();
    const auto start = Clock::now();  // before the server's 300 ms begin: took >= 300 holds by construction
    auto server = std::async(std::launch::async, [port] {
        std::this_thread::sleep_for(300ms);
        Listener l(port);
        const auto listening = Clock::now();
        return std::pair(l.accept(hang_guard), listening);
    });
    const ThreadTime t;
    Channel client = Channel::connect("127.0.0.1", port, hang_guard);
    const long blocked = t.blocked_ms();
    const long took = ms_since(start);
    auto [srv, listening] = server.get();
    CHECK(took >= 300);
    // It connected at its next attempt once the listener was there: asleep
    // no longer than until then and one retry interval (twice, for the timers).
    const auto until_listening = std::chrono::duration_cast<std::chrono::milliseconds>(listening - start).count();
    CHECK(blocked <= until_listening + 2 * connect_retry_interval.count());
    client.send(Json{{"type", "ping"}}, 500ms);
    CHECK(message_type(srv.receive(500ms)) == "ping");
}

TEST_CASE("connect to a closed port gives up at its deadline, naming host:port")
{
    const std::uint16_t port = free_port();
    const auto start = Clock::now();
    const ThreadTime t;
    const std::string e = thrown<TimeoutError>([&] { Channel::connect("127.0.0.1", port, 300ms); });
    CHECK(t.blocked_ms() <= 2 * 300);  // gave up at its deadline: asleep no longer than twice that
    CHECK(ms_since(start) >= 300);
    CHECK(e.starts_with(fmt::format("could not connect to 127.0.0.1:{} within 300 ms (", port)));
    CHECK(contains(e, "last: ECONNREFUSED (Connection refused)): is the qpscope server running there?"));
}

TEST_CASE("a host name that cannot be parsed is a usage error")
{
    // An empty name: refused without asking DNS (which may be absent here).
    CHECK(contains(thrown<UsageError>([] { Channel::connect("", 1, 300ms); }), "cannot resolve host \"\""));
}

TEST_CASE("accept: deadline, forever until interrupted, and by a real SIGINT")
{
    Listener listener(0);
    const auto start = Clock::now();
    const ThreadTime t;
    CHECK(thrown<TimeoutError>([&] { listener.accept(200ms); }) ==
          fmt::format("no client connected to TCP port {} within 200 ms", listener.port()));
    CHECK(t.blocked_ms() <= 2 * 200);
    CHECK(ms_since(start) >= 200);

    // 0 = forever, until an interrupt
    auto waiting = std::async(std::launch::async, [&] {
        return thrown<Interrupted>([&] { listener.accept(0ms); });
    });
    CHECK(waiting.wait_for(150ms) == std::future_status::timeout);
    request_interrupt();
    CHECK(waiting.wait_for(hang_guard) == std::future_status::ready);
    CHECK(waiting.get() == fmt::format("interrupted while waiting for a client on TCP port {}", listener.port()));
    clear_interrupt();
    CHECK_FALSE(interrupt_pending());

    install_interrupt_handlers();
    auto waiting2 = std::async(std::launch::async, [&] {
        return thrown<Interrupted>([&] { listener.accept(0ms); });
    });
    CHECK(waiting2.wait_for(100ms) == std::future_status::timeout);
    ::raise(SIGINT);  // the handler resets itself: SIGINT is fatal again afterwards
    CHECK(waiting2.wait_for(hang_guard) == std::future_status::ready);
    CHECK(waiting2.get() == fmt::format("interrupted by SIGINT while waiting for a client on TCP port {}",
                                        listener.port()));
    clear_interrupt();

    // after a cleared interrupt, waits work again
    auto server = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel client = Channel::connect("127.0.0.1", listener.port(), hang_guard);
    CHECK(server.get().fd() >= 0);
}

TEST_CASE("accept_one binds, accepts one and stops listening")
{
    const std::uint16_t port = free_port();
    // The client retries until the server's thread listens, however late it runs.
    auto server = std::async(std::launch::async, [port] { return Channel::accept_one(port, hang_guard); });
    Channel client = Channel::connect("127.0.0.1", port, hang_guard);
    Channel srv = server.get();
    CHECK(contains(thrown<TimeoutError>([port] { Channel::connect("127.0.0.1", port, 150ms); }), "ECONNREFUSED"));
}

TEST_CASE("a port in use is named with a hint")
{
    Listener first(0);
    // SO_REUSEADDR does not let two sockets listen on one port.
    const std::string e = thrown<qps::SystemError>([&] { Listener second(first.port()); });
    CHECK(e == fmt::format("bind to TCP port {} failed: EADDRINUSE (Address already in use) — another program (or "
                           "another qpscope server) listens on that port; choose another port",
                           first.port()));
}

TEST_CASE("receive: a peer that says nothing runs into the deadline; the channel stays usable")
{
    RawPair p;
    const auto start = Clock::now();
    const ThreadTime t;
    CHECK(thrown<TimeoutError>([&] { p.server.receive(200ms, "the \"hello\" message"); }) ==
          fmt::format("exchange with {}: nothing received within 200 ms while waiting for the \"hello\" message: "
                      "the peer stopped answering, the connection still open",
                      p.server.peer()));
    CHECK(t.blocked_ms() <= 2 * 200);
    CHECK(ms_since(start) >= 200);
    p.raw.write(frame_of(R"({"type":"hello"})"));
    CHECK(message_type(p.server.receive(500ms)) == "hello");
}

TEST_CASE("receive: garbage bytes")
{
    RawPair p;
    p.raw.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(thrown<OperationError>([&] { p.server.receive(500ms); }) ==
          fmt::format("exchange with {}: received bytes that are not a qpscope exchange frame (\"GET / HT\"): is a "
                      "program other than qpscope on the other end?",
                      p.server.peer()));
    CHECK(thrown<OperationError>([&] { p.server.receive(500ms); }) ==
          fmt::format("exchange with {}: connection unusable after an earlier error", p.server.peer()));
}

TEST_CASE("receive: an oversized length is refused without reading the body")
{
    RawPair p;
    p.raw.write("QPSX" + be32(0x7fffffff));
    CHECK(thrown<OperationError>([&] { p.server.receive(500ms); }) ==
          fmt::format("exchange with {}: message length 2147483647 is outside 2..65536 bytes", p.server.peer()));
}

TEST_CASE("receive: invalid JSON in a well-framed message")
{
    RawPair p;
    p.raw.write(frame_of(R"({"type":"hello",})"));
    CHECK(contains(thrown<OperationError>([&] { p.server.receive(500ms); }),
                   fmt::format("exchange with {}: message is not valid JSON: ", p.server.peer())));
    // the frame was consumed whole: the next one reads fine
    p.raw.write(frame_of(R"({"type":"hello"})"));
    CHECK(message_type(p.server.receive(500ms)) == "hello");
}

TEST_CASE("receive: the peer closes in the middle of a message or between messages")
{
    {
        RawPair p;
        p.raw.write("QPS");
        p.raw.close();
        CHECK(thrown<TimeoutError>([&] { p.server.receive(500ms, "the \"params\" message"); }) ==
              fmt::format("exchange with {}: the peer closed the connection in the middle of the \"params\" message "
                          "(3 of 8 header bytes received)",
                          p.server.peer()));
    }
    {
        RawPair p;
        p.raw.write("QPSX" + be32(100) + R"({"type":"hel)");
        p.raw.close();
        CHECK(thrown<TimeoutError>([&] { p.server.receive(500ms); }) ==
              fmt::format("exchange with {}: the peer closed the connection in the middle of a message (12 of 100 "
                          "body bytes received)",
                          p.server.peer()));
    }
    {
        RawPair p;
        p.raw.close();
        CHECK(thrown<TimeoutError>([&] { p.server.receive(500ms, "the \"endpoint\" message"); }) ==
              fmt::format("exchange with {}: the peer closed the connection while we waited for the \"endpoint\" "
                          "message",
                          p.server.peer()));
    }
}

TEST_CASE("receive: a message that stops half-way runs into the deadline")
{
    RawPair p;
    p.raw.write("QPSX" + be32(100) + "{");
    const auto start = Clock::now();
    const ThreadTime t;
    CHECK(thrown<TimeoutError>([&] { p.server.receive(200ms); }) ==
          fmt::format("exchange with {}: timed out after 200 ms in the middle of a message (1 of 100 body bytes "
                      "received)",
                      p.server.peer()));
    CHECK(t.blocked_ms() <= 2 * 200);
    CHECK(ms_since(start) >= 200);
}

// A run's end: the wait for the peer's word counts from its last byte, so a
// word that trickles in over longer than the timeout still arrives whole.
TEST_CASE("receive, Wait::silence: bytes that keep coming keep the wait going; silence ends it")
{
    RawPair p;
    const std::string frame = frame_of(R"({"type":"stalled","message":"server side ended the run","evidence":{}})");
    constexpr auto silence = 500ms;
    constexpr int pieces = 8;  // 100 ms apart: 700 ms at least from the first to the last, past the 500 ms
    Clock::duration widest_gap{};
    std::thread writer([&] {
        const std::size_t step = frame.size() / pieces + 1;
        auto last = Clock::now();
        for (std::size_t at = 0; at < frame.size(); at += step) {
            if (at > 0)
                std::this_thread::sleep_for(100ms);
            p.raw.write(frame.substr(at, step));
            const auto now = Clock::now();
            widest_gap = std::max(widest_gap, now - last);
            last = now;
        }
    });
    const auto start = Clock::now();
    std::optional<Json> got;
    std::string error;
    try {
        got = p.server.receive(silence, "the peer's answer", Wait::silence);
    } catch (const std::exception& e) {
        error = e.what();
    }
    writer.join();
    CHECK(ms_since(start) >= 700);  // longer than the timeout from the call, by construction
    if (widest_gap < silence) {  // the writer kept to its pace (a loaded host may hold it back)
        CHECK(error == "");
        REQUIRE(got);
        CHECK(message_type(*got) == "stalled");
    }

    // Nothing more: the wait ends after the silence, worded as such.
    const auto quiet = Clock::now();
    CHECK(thrown<TimeoutError>([&] { p.server.receive(200ms, "the \"results\" message", Wait::silence); }) ==
          fmt::format("exchange with {}: nothing received for 200 ms while waiting for the \"results\" message: "
                      "the peer stopped answering, the connection still open",
                      p.server.peer()));
    CHECK(ms_since(quiet) >= 200);
}

TEST_CASE("receive_until with a silence: each byte moves the deadline to that long after it")
{
    RawPair p;
    p.raw.write("abcd");
    const auto before = Clock::now();  // the origin before the bytes are taken
    auto deadline = before + 50ms;
    char buf[4];
    const Transfer t = receive_until(p.server.fd(), buf, sizeof buf, deadline, 10s, "peer", "reading");
    CHECK(t.end == IoEnd::done);
    CHECK(t.bytes == 4u);
    CHECK(deadline >= before + 10s);  // moved past the 50 ms it began with
}

TEST_CASE("send: to a peer that has gone")
{
    RawPair p;
    p.raw.close();
    // The first sends may land in the socket buffer before the reset arrives.
    std::string e;
    for (int i = 0; i < 50 && e.empty(); ++i) {
        try {
            p.server.send(Json{{"type", "ready"}}, 200ms);
            std::this_thread::sleep_for(5ms);
        } catch (const TimeoutError& err) {
            e = err.what();
        }
    }
    CHECK(e == fmt::format("exchange with {}: the peer closed the connection while we sent the \"ready\" message",
                           p.server.peer()));
}

TEST_CASE("send: a peer that does not read runs into the deadline")
{
    RawPair p;
    const Json big{{"type", "results"}, {"blob", std::string(60000, 'z')}};
    std::string e;
    long took = 0, blocked = 0;  // the send that gave up
    for (int i = 0; i < 200 && e.empty(); ++i) {
        const auto start = Clock::now();
        const ThreadTime t;
        try {
            p.server.send(big, 100ms);
        } catch (const TimeoutError& err) {
            e = err.what();
            blocked = t.blocked_ms();
            took = ms_since(start);
        }
    }
    CHECK(contains(e, "timed out after 100 ms sending the \"results\" message ("));
    CHECK(contains(e, "bytes sent): the peer is not reading"));
    CHECK(took >= 100);
    CHECK(blocked <= 2 * 100);
}

TEST_CASE("host_of: a peer's address without its port, IPv6 without brackets")
{
    CHECK(qps::net::host_of("192.0.2.2:18615") == "192.0.2.2");
    CHECK(qps::net::host_of("[fe80::1]:18615") == "fe80::1");
    CHECK(qps::net::host_of("lab") == "lab");
}

TEST_CASE("--bind: the client's source address and the server's listening address")
{
    // 127.0.0.2 is this host's too (all of 127/8 is loopback): the source shows it.
    Listener listener(0, "127.0.0.1");
    auto server = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel client = Channel::connect("127.0.0.1", listener.port(), hang_guard, "127.0.0.2");
    Channel srv = server.get();
    CHECK(srv.peer().starts_with("127.0.0.2:"));
    // Only that address listens: another one of this host is refused.
    CHECK(contains(thrown<TimeoutError>([&] { Channel::connect("127.0.0.2", listener.port(), 150ms); }),
                   "ECONNREFUSED"));
    CHECK(thrown<qps::UsageError>([] { Listener l(0, "192.0.2.77"); }) ==
          "the source address 192.0.2.77: no interface of this host has that address");
    CHECK(thrown<qps::UsageError>([&] { Channel::connect("127.0.0.1", listener.port(), 150ms, "192.0.2.77"); }) ==
          "the source address 192.0.2.77: no interface of this host has that address");
    CHECK(thrown<qps::UsageError>([] { Listener l(0, "lab-a"); }) ==
          "the source address \"lab-a\" is not a numeric IPv4 or IPv6 address");
    // An IPv6 source towards an IPv4 destination: that attempt's error, named at the deadline.
    CHECK(contains(thrown<TimeoutError>([&] { Channel::connect("127.0.0.1", listener.port(), 150ms, "::1"); }),
                   "the source address ::1 is IPv6, the destination IPv4"));
}
