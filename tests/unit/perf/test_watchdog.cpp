// The hot loops' watchdog: silence, interrupts and the out-of-band socket,
// the socket looked at no more than once a millisecond; with a PeerWatch,
// the heartbeats too.
#include <chrono>
#include <doctest/doctest.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "src/net/frame.hpp"
#include "src/net/heartbeat.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/messages.hpp"
#include "src/perf/watchdog.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::perf;
using namespace std::chrono_literals;

namespace {

std::string said(const char* reason) { return reason ? reason : "(nothing)"; }

}  // namespace

TEST_CASE("watchdog: a silent peer ends the run after the limit, progress restarts it")
{
    const Clock clock = Clock::system();
    Watchdog dog(clock, 5ms, -1);
    CHECK(said(dog.check(1)) == "(nothing)");  // progress
    std::this_thread::sleep_for(10ms);
    CHECK(said(dog.check(2)) == "(nothing)");  // progress again: the limit restarts
    std::this_thread::sleep_for(10ms);
    CHECK(said(dog.check(2)) == "no completion within the timeout: the peer is silent");
}

TEST_CASE("watchdog: a readable socket ends the run; it is looked at once a millisecond at most")
{
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 10s, fds[0]);
    CHECK(said(dog.check(1)) == "(nothing)");  // looked: nothing there
    REQUIRE(::write(fds[1], "x", 1) == 1);
    std::this_thread::sleep_for(2ms);
    CHECK(said(dog.check(2)) == "the peer finished or closed the out-of-band connection");
    ::close(fds[0]);
    ::close(fds[1]);
}

TEST_CASE("watchdog: an interrupt ends the run at the next look")
{
    const Clock clock = Clock::system();
    Watchdog dog(clock, 10s, -1);
    qps::net::request_interrupt();
    CHECK(said(dog.check(1)) == "interrupted");
    qps::net::clear_interrupt();
    CHECK(said(dog.check(2)) == "(nothing)");
}

// A run without the crew's coordinator thread (one ping-pong pair): the
// watchdog keeps the heartbeats going itself, through the PeerWatch.
TEST_CASE("watchdog with the peer: heartbeats both ways keep it running past the limit; another message ends it")
{
    qps::net::test::RawPair p;
    qps::net::PeerWatch peer(p.server.fd(), p.server.peer(), 200ms);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 200ms, -1, &peer);
    const auto end = qps::net::test::Clock::now() + 600ms;
    std::uint64_t progress = 0;
    while (qps::net::test::Clock::now() < end) {
        p.raw.write(qps::net::heartbeat_frame());
        REQUIRE(said(dog.check(++progress)) == "(nothing)");
        std::this_thread::sleep_for(10ms);
    }
    // This side's heartbeats went out: 600 ms at one every 50 ms (12; at
    // least 4 on a loaded host), whole frames.
    std::string got(4096, '\0');
    const ssize_t n = ::recv(p.raw.fd(), got.data(), got.size(), MSG_DONTWAIT);
    const auto frame = qps::net::heartbeat_frame().size();
    CHECK(n >= static_cast<ssize_t>(4 * frame));
    CHECK(n % static_cast<ssize_t>(frame) == 0);
    // Another message: the peer's end, once it has arrived (looked at once a
    // millisecond at most; asked every 5 ms for up to 2 s).
    p.raw.write(qps::net::encode_frame(qps::net::ready_message()));
    const auto start = qps::net::test::Clock::now();
    const char* why = nullptr;
    while (!why && qps::net::test::ms_since(start) < 2000) {
        std::this_thread::sleep_for(5ms);
        why = dog.check(++progress);
    }
    CHECK(said(why) == Watchdog::finished_reason);
    CHECK(dog.lost().empty());
}

TEST_CASE("watchdog with the peer: a silent peer is named as such, not taken for this side's stall")
{
    qps::net::test::RawPair p;  // the raw peer never sends: a stopped process, its connection open
    qps::net::PeerWatch peer(p.server.fd(), p.server.peer(), 300ms);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 300ms, -1, &peer);
    const auto start = qps::net::test::Clock::now();
    const char* why = dog.check(1);
    while (!why && qps::net::test::ms_since(start) < 2000) {
        std::this_thread::sleep_for(5ms);
        why = dog.check(1);  // no progress either
    }
    CHECK(qps::net::test::ms_since(start) >= 290);
    CHECK(said(why) == dog.lost());
    CHECK(qps::test::contains(dog.lost(), "stopped answering: no heartbeat for 300 ms"));
}
