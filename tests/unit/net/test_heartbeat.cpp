// Heartbeats on the out-of-band connection during a run: each side's
// PeerWatch sends its own and takes the peer's; a silent peer (stopped,
// hung) is named within the silence limit although its connection stays
// open; any other message, or a closed connection, is the peer's end and
// stays in the socket for the exchange to read.
#include <doctest/doctest.h>
#include <thread>

#include "src/net/channel.hpp"
#include "src/net/frame.hpp"
#include "src/net/heartbeat.hpp"
#include "src/net/messages.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::net;
using namespace qps::net::test;
using namespace std::chrono_literals;

namespace {

// Looks at `watch` every 10 ms until it says something other than running,
// or `limit` passes; returns what it said last.
PeerWatch::Peer look_until(PeerWatch& watch, std::chrono::milliseconds limit)
{
    const auto end = Clock::now() + limit;
    PeerWatch::Peer seen = watch.look();
    while (seen == PeerWatch::Peer::running && Clock::now() < end) {
        std::this_thread::sleep_for(10ms);
        seen = watch.look();
    }
    return seen;
}

}  // namespace

TEST_CASE("heartbeat interval: a quarter of the silence limit, 50 ms to 1 s")
{
    CHECK(heartbeat_interval(10000ms) == 1000ms);
    CHECK(heartbeat_interval(3000ms) == 750ms);
    CHECK(heartbeat_interval(100ms) == 50ms);
    CHECK(heartbeat_interval(60000ms) == 1000ms);
}

TEST_CASE("the heartbeat frame is a framed alive message")
{
    CHECK(heartbeat_frame() == encode_frame(alive_message()));
    CHECK(message_type(decode_frame(heartbeat_frame())) == "alive");
}

TEST_CASE("two sides that both look keep each other alive past the silence limit")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 200ms);
    PeerWatch client(p.raw.fd(), "server", 200ms);
    const auto end = Clock::now() + 700ms;
    while (Clock::now() < end) {
        REQUIRE(server.look() == PeerWatch::Peer::running);
        REQUIRE(client.look() == PeerWatch::Peer::running);
        std::this_thread::sleep_for(10ms);
    }
}

TEST_CASE("a peer that stops sending heartbeats is silent after the limit, not before")
{
    RawPair p;  // the raw peer never sends: a stopped process with its connection open
    const auto start = Clock::now();
    PeerWatch server(p.server.fd(), p.server.peer(), 300ms);
    CHECK(server.look() == PeerWatch::Peer::running);
    CHECK(look_until(server, 2000ms) == PeerWatch::Peer::silent);
    CHECK(ms_since(start) >= 290);
    CHECK(ms_since(start) < 1500);
    CHECK(contains(server.silence_reason(), "stopped answering: no heartbeat for 300 ms, the connection still open"));
    // The raw peer's kernel acknowledges the heartbeats its process never reads.
    CHECK(contains(server.silence_reason(), "its kernel acknowledging this side's TCP: its process is stopped"));
    CHECK(contains(server.silence_reason(), p.server.peer()));
}

TEST_CASE("a silence is named from what TCP says: a cut path, a hung process, or unknown")
{
    CHECK(silence_text("192.0.2.2:18615", 10000ms, TcpState{3, 4, 6400}) ==
          "the peer 192.0.2.2:18615 stopped answering: no heartbeat for 10000 ms, and this side's TCP to it goes "
          "unacknowledged (3 segments in flight, sent again 4 times, next in 6400 ms): nothing crosses the path to it "
          "(a link down on either side or on the way, or its host down)");
    CHECK(contains(silence_text("h:1", 500ms, TcpState{1, 1, 200}), "(1 segment in flight, sent again 1 time, next"));
    CHECK(silence_text("h:1", 500ms, TcpState{0, 0, 200, 42}) ==
          "the peer h:1 stopped answering: no heartbeat for 500 ms, and this side's TCP cannot send to it (42 bytes "
          "waiting, none in flight): no route to it (this host's link or address is down)");
    CHECK(silence_text("h:1", 500ms, TcpState{0, 0, 200}) ==
          "the peer h:1 stopped answering: no heartbeat for 500 ms, the connection still open and its kernel "
          "acknowledging this side's TCP: its process is stopped, hung or swapped out");
    // In flight but not yet sent again: too early to blame the path.
    CHECK(silence_text("h:1", 500ms, TcpState{2, 0, 200}) ==
          "the peer h:1 stopped answering: no heartbeat for 500 ms, the connection still open (is it stopped, hung or "
          "swapped out?)");
    CHECK(silence_text("h:1", 500ms, std::nullopt) == silence_text("h:1", 500ms, TcpState{2, 0, 200}));
}

TEST_CASE("heartbeats heard reset the silence; the ones sent arrive as whole frames")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 300ms);
    for (int i = 0; i < 8; ++i) {  // 800 ms in all, a heartbeat every 100 ms
        p.raw.write(heartbeat_frame());
        std::this_thread::sleep_for(100ms);
        REQUIRE(server.look() == PeerWatch::Peer::running);
    }
    // What the server sent: nothing but whole heartbeats.
    Channel raw = Channel::adopt(::dup(p.raw.fd()));
    const std::string& beat = heartbeat_frame();
    std::string got(beat.size(), '\0');
    CHECK(::recv(raw.fd(), got.data(), got.size(), MSG_DONTWAIT) == static_cast<ssize_t>(beat.size()));
    CHECK(got == beat);
}

TEST_CASE("a heartbeat split across two segments is taken whole")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 5000ms);
    const std::string& beat = heartbeat_frame();
    p.raw.write(beat.substr(0, 10));
    std::this_thread::sleep_for(20ms);
    CHECK(server.look() == PeerWatch::Peer::running);  // a beginning only: wait for the rest
    p.raw.write(beat.substr(10) + beat);
    std::this_thread::sleep_for(20ms);
    CHECK(server.look() == PeerWatch::Peer::running);
    // Nothing left in the socket.
    char c = 0;
    CHECK(::recv(p.server.fd(), &c, 1, MSG_PEEK | MSG_DONTWAIT) < 0);
}

TEST_CASE("another message is the peer's end, and stays for the exchange behind the heartbeats")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 5000ms);
    // "ready" has the length of "alive": the frame headers are equal.
    p.raw.write(heartbeat_frame() + heartbeat_frame() + encode_frame(ready_message()) + heartbeat_frame());
    std::this_thread::sleep_for(20ms);
    CHECK(server.look() == PeerWatch::Peer::done);
    CHECK(message_type(p.server.receive(500ms)) == "ready");
    // A heartbeat after it is skipped by the next receive, up to its deadline.
    CHECK(thrown<qps::TimeoutError>([&] { p.server.receive(100ms, "the \"results\" message"); }) ==
          fmt::format("exchange with {}: nothing received within 100 ms while waiting for the \"results\" message: "
                      "the peer stopped answering, the connection still open",
                      p.server.peer()));
}

TEST_CASE("a closed connection is the peer's end")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 5000ms);
    p.raw.close();
    std::this_thread::sleep_for(20ms);
    CHECK(server.look() == PeerWatch::Peer::done);
}

TEST_CASE("keep_alive sends without taking")
{
    RawPair p;
    PeerWatch server(p.server.fd(), p.server.peer(), 200ms);
    p.raw.write(encode_frame(ready_message()));
    server.keep_alive();
    std::this_thread::sleep_for(20ms);
    // The raw side got a heartbeat; the server's socket still holds the ready.
    Channel raw = Channel::adopt(::dup(p.raw.fd()));
    const std::string& beat = heartbeat_frame();
    std::string got(beat.size(), '\0');
    CHECK(::recv(raw.fd(), got.data(), got.size(), MSG_DONTWAIT) == static_cast<ssize_t>(beat.size()));
    CHECK(message_type(p.server.receive(500ms)) == "ready");
}
