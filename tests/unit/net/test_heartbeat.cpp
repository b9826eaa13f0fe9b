// Heartbeats on the out-of-band connection during a run: each side's
// PeerWatch sends its own and takes the peer's; a silent peer (stopped,
// hung) is named within the silence limit although its connection stays
// open; any other message, or a closed connection, is the peer's end and
// stays in the socket for the exchange to read.
#include <cstring>
#include <doctest/doctest.h>
#include <optional>
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

// True when a whole heartbeat waits in `fd`'s socket (looked at, not taken).
bool heartbeat_waiting(int fd)
{
    const std::string& beat = heartbeat_frame();
    char buf[64];
    const ssize_t n = ::recv(fd, buf, beat.size(), MSG_PEEK | MSG_DONTWAIT);
    return n == static_cast<ssize_t>(beat.size()) && std::memcmp(buf, beat.data(), beat.size()) == 0;
}

// One side's looks, each held to what the test itself measured rather than
// to the 10 ms it means to sleep between them: a look that finds the peer's
// heartbeat waiting, or that ends within the silence limit of the start of
// the last such look (or of the watch's start), heard the peer within the
// limit and must say running, whatever the scheduler did between the
// test's iterations. A look after a longer gap (a descheduled test thread)
// is held to nothing.
struct LookingSide {
    PeerWatch& watch;
    int fd;
    Clock::time_point heard;  // at or before the watch last heard the peer
    int heard_beats = 0;      // looks that took a heartbeat
    int held_past_limit = 0;  // looks held to running that began past the limit

    void look(std::chrono::milliseconds limit, Clock::time_point started)
    {
        const auto before = Clock::now();
        const bool waiting = heartbeat_waiting(fd);
        const PeerWatch::Peer seen = watch.look();
        const auto after = Clock::now();
        if (waiting || after - heard <= limit) {
            CHECK(seen == PeerWatch::Peer::running);
            if (before - started > limit)
                ++held_past_limit;
        }
        if (waiting) {
            heard = before;
            ++heard_beats;
        }
    }
};

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
    const auto start = Clock::now();  // before either watch starts its silence clock
    PeerWatch server(p.server.fd(), p.server.peer(), 200ms);
    PeerWatch client(p.raw.fd(), "server", 200ms);
    const auto started = Clock::now();  // after: the time since is at most the watches' age
    LookingSide s{server, p.server.fd(), start};
    LookingSide c{client, p.raw.fd(), start};
    // A look every 10 ms, until each side heard a few heartbeats and was held
    // to running past the limit a good number of times (700 ms when the
    // test thread runs on time), or the hang guard.
    while ((s.heard_beats < 3 || c.heard_beats < 3 || s.held_past_limit < 20 || c.held_past_limit < 20 ||
            Clock::now() - started < 700ms) &&
           Clock::now() - started < hang_guard) {
        s.look(200ms, started);
        c.look(200ms, started);
        std::this_thread::sleep_for(10ms);
    }
    CHECK(s.heard_beats >= 3);
    CHECK(c.heard_beats >= 3);
    CHECK(s.held_past_limit >= 20);
    CHECK(c.held_past_limit >= 20);
}

TEST_CASE("sides with different limits: both beat at a quarter of the smaller, each judges by its own")
{
    // The server's --timeout is 200 ms, the client's 4 s (Exchange::beat_limit
    // gives both 200 ms): the client beats every 50 ms, not every second, so
    // the server holds it running past its own 200 ms.
    RawPair p;
    const auto start = Clock::now();
    PeerWatch server(p.server.fd(), p.server.peer(), 200ms, 200ms);
    PeerWatch client(p.raw.fd(), "server", 4000ms, 200ms);
    CHECK(server.interval() == 50ms);
    CHECK(client.interval() == 50ms);
    CHECK(PeerWatch(p.raw.fd(), "server", 4000ms).interval() == 1000ms);  // its own pace alone
    const auto started = Clock::now();
    LookingSide s{server, p.server.fd(), start};
    LookingSide c{client, p.raw.fd(), start};
    while ((s.heard_beats < 3 || s.held_past_limit < 20 || Clock::now() - started < 700ms) &&
           Clock::now() - started < hang_guard) {
        s.look(200ms, started);
        c.look(4000ms, started);
        std::this_thread::sleep_for(10ms);
    }
    CHECK(s.heard_beats >= 3);
    CHECK(s.held_past_limit >= 20);
}

TEST_CASE("a peer that stops sending heartbeats is silent after the limit, not before")
{
    RawPair p;  // the raw peer never sends: a stopped process with its connection open
    const auto start = Clock::now();  // before the watch starts its silence clock: >= 300 ms holds by construction
    PeerWatch server(p.server.fd(), p.server.peer(), 300ms);
    const auto started = Clock::now();  // after: a look that begins 300 ms after this is past the limit
    // Looks every 10 ms until it says something other than running.
    PeerWatch::Peer seen = PeerWatch::Peer::running;
    std::optional<Clock::time_point> last_running;  // when the last look that said running began
    while (seen == PeerWatch::Peer::running && Clock::now() - started < hang_guard) {
        const auto before = Clock::now();
        seen = server.look();
        if (seen == PeerWatch::Peer::running) {
            last_running = before;
            std::this_thread::sleep_for(10ms);
        }
    }
    CHECK(seen == PeerWatch::Peer::silent);
    CHECK(ms_since(start) >= 300);  // not before the limit
    // Named at the first look past the limit: none that began later said running.
    if (last_running)
        CHECK(*last_running - started <= 300ms);
    CHECK(contains(server.silence_reason(), "stopped answering: no heartbeat for 300 ms, the connection still open"));
    // The raw peer's kernel acknowledges the heartbeats its process never reads.
    CHECK(contains(server.silence_reason(), "its kernel acknowledging this side's TCP: its process is stopped"));
    CHECK(contains(server.silence_reason(), p.server.peer()));
}

TEST_CASE("this side's TCP in a few words: unacknowledged and resent, in flight, unsendable, idle, unknown")
{
    CHECK(tcp_text(TcpState{2, 5, 3200}) == "this side's TCP to it has 2 segments unacknowledged, sent again 5 times");
    CHECK(tcp_text(TcpState{1, 1, 200}) == "this side's TCP to it has 1 segment unacknowledged, sent again 1 time");
    CHECK(tcp_text(TcpState{3, 0, 200}) == "this side's TCP to it has 3 segments in flight, none sent again yet");
    CHECK(tcp_text(TcpState{0, 0, 200, 240}) == "this side's TCP cannot send to it (240 bytes waiting, none in flight)");
    CHECK(tcp_text(TcpState{0, 0, 200}) == "this side's TCP has nothing unacknowledged and nothing waiting");
    CHECK(tcp_text(std::nullopt) == "this side's TCP state is unknown");
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
    // 800 ms at least, a heartbeat every 100 ms; each waits in the socket
    // when the server looks, so it hears it then, however late that look.
    for (int i = 0; i < 8; ++i) {
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
    // A limit no descheduling of the test reaches: the test is about framing, not silence.
    PeerWatch server(p.server.fd(), p.server.peer(), std::chrono::hours(1));
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
