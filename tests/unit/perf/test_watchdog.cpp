// The hot loops' watchdog: silence, interrupts and the out-of-band socket,
// the socket looked at no more than once a millisecond; with a PeerWatch,
// the heartbeats too.
#include <chrono>
#include <doctest/doctest.h>
#include <optional>
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
    // Without the PeerWatch, what the peer does is not known here.
    CHECK(said(dog.check(2)) == "no completion within the timeout");
    CHECK(Watchdog::is_stall(dog.check(2)));
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
    using Steady = qps::net::test::Clock;
    qps::net::test::RawPair p;
    qps::net::PeerWatch peer(p.server.fd(), p.server.peer(), 200ms);
    const auto started = Steady::now();  // after: the time since is at most the watch's age
    const Steady::duration interval = qps::net::heartbeat_interval(200ms);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 200ms, -1, &peer);
    // The watch sends a heartbeat at its first look, then at the first look
    // an interval after the last one it sent. So a look that began an
    // interval after the end of the last look counted here sent one: at
    // least `due` went out, however the scheduler spaced the looks.
    int due = 0;
    std::optional<Steady::time_point> last_due_end;
    std::size_t received = 0;  // bytes of this side's heartbeats that reached the raw peer
    std::uint64_t progress = 0;
    // Every 10 ms, a heartbeat and a look, the peer's heartbeat waiting each
    // time: 600 ms (three limits) and 4 heartbeats due at least, or the hang guard.
    while ((due < 4 || Steady::now() - started < 600ms) && Steady::now() - started < qps::test::hang_guard) {
        p.raw.write(qps::net::heartbeat_frame());
        const auto before = Steady::now();
        REQUIRE(said(dog.check(++progress)) == "(nothing)");
        const auto after = Steady::now();
        if (!last_due_end || before - *last_due_end >= interval) {
            ++due;
            last_due_end = after;
        }
        received += qps::net::test::take_waiting(p.raw.fd());
        std::this_thread::sleep_for(10ms);
    }
    received += qps::net::test::take_waiting(p.raw.fd());
    // This side's heartbeats went out (12 when the test runs on time), whole frames.
    const auto frame = qps::net::heartbeat_frame().size();
    CHECK(due >= 4);
    CHECK(received >= static_cast<std::size_t>(due) * frame);
    CHECK(received % frame == 0);
    // Another message: the peer's end, once it has arrived (looked at once a
    // millisecond at most; asked every 5 ms until the hang guard).
    p.raw.write(qps::net::encode_frame(qps::net::ready_message()));
    const auto start = Steady::now();
    const char* why = nullptr;
    while (!why && Steady::now() - start < qps::test::hang_guard) {
        std::this_thread::sleep_for(5ms);
        why = dog.check(++progress);
    }
    CHECK(said(why) == Watchdog::finished_reason);
    CHECK(dog.lost().empty());
}

TEST_CASE("watchdog with the peer: a silent peer is named as such, not taken for this side's stall")
{
    using Steady = qps::net::test::Clock;
    qps::net::test::RawPair p;  // the raw peer never sends: a stopped process, its connection open
    const auto start = Steady::now();  // before the PeerWatch starts its silence clock: >= 300 ms holds by construction
    qps::net::PeerWatch peer(p.server.fd(), p.server.peer(), 300ms);
    // The peer's silence clock (steady_clock) starts before the watchdog's
    // (CLOCK_MONOTONIC_RAW): when the watchdog's runs out the peer's has too,
    // whatever NTP does to the steady clock's rate (1 ms covers 3000 ppm).
    std::this_thread::sleep_for(1ms);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 300ms, -1, &peer);
    const char* why = dog.check(1);
    const auto counted = Steady::now();  // the watchdog's silence clock (progress 1) started before this
    std::optional<Steady::time_point> last_quiet;  // when the last check that said nothing began
    while (!why && Steady::now() - start < qps::test::hang_guard) {
        std::this_thread::sleep_for(5ms);
        const auto before = Steady::now();
        why = dog.check(1);  // no progress either
        if (!why)
            last_quiet = before;
    }
    CHECK(qps::net::test::ms_since(start) >= 300);  // not before the limit
    CHECK(said(why) == dog.lost());
    CHECK(qps::test::contains(dog.lost(), "stopped answering: no heartbeat for 300 ms"));
    // Named at the first check past the limit (1 % more for the two clocks):
    // none that began later said nothing.
    if (last_quiet)
        CHECK(*last_quiet - counted <= 303ms);
}

TEST_CASE("watchdog with the peer: no completion while its heartbeats arrive is this side's stall, not a silent peer")
{
    using Steady = qps::net::test::Clock;
    qps::net::test::RawPair p;
    // The peer's limit far beyond the watchdog's: heard within it at every
    // look, however the scheduler spaces them (the test bounds only hangs).
    qps::net::PeerWatch peer(p.server.fd(), p.server.peer(), qps::test::hang_guard);
    const Clock clock = Clock::system();
    Watchdog dog(clock, 100ms, -1, &peer);
    const auto start = Steady::now();
    const char* why = nullptr;
    while (!why && Steady::now() - start < qps::test::hang_guard) {
        p.raw.write(qps::net::heartbeat_frame());
        std::this_thread::sleep_for(5ms);
        why = dog.check(1);  // no progress
    }
    CHECK(said(why) == Watchdog::stalled_heard_reason);
    CHECK(Watchdog::is_stall(why));
    CHECK(qps::test::contains(said(why), "while the peer's heartbeats kept arriving"));
    CHECK(dog.lost().empty());
}
