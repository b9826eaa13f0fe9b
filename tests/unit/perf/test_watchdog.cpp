// The hot loops' watchdog: silence, interrupts and the out-of-band socket,
// the socket looked at no more than once a millisecond.
#include <chrono>
#include <doctest/doctest.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "src/net/interrupt.hpp"
#include "src/perf/watchdog.hpp"

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
