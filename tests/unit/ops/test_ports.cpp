// src/ops/ports.cpp: the `ports --watch` loop, fed by a read function of
// our own (the device's counters are the lab's: tests/lab/cases/15-*).
#include <doctest/doctest.h>
#include <future>
#include <thread>

#include "src/net/interrupt.hpp"
#include "src/ops/ports.hpp"
#include "unit/report/ports_sample.hpp"
#include "unit/util.hpp"

using namespace qps;
using namespace qps::report;
using qps::ops::run_watch;
using qps::test::one_port;
using qps::test::reading;
using namespace std::chrono_literals;

TEST_CASE("watch loop: --count samples at the interval; an interrupt ends it normally")
{
    net::clear_interrupt();
    std::uint64_t value = 0;
    auto read = [&] { return one_port({reading("sent_pkts", value += 7)}); };
    std::vector<WatchSample> got;
    const auto start = std::chrono::steady_clock::now();
    run_watch({.interval_s = 0.02, .count = 3}, read, [&](const WatchSample& s) { got.push_back(s); });
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE(got.size() == 3);
    CHECK(took >= 40ms);  // two waits of 20 ms
    CHECK_FALSE(got[0].elapsed_s);
    // The schedule is fixed-rate from the first sample: the gaps add up to
    // at least the two intervals.
    double elapsed_sum = 0;
    for (std::size_t i = 1; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].number == i + 1);
        REQUIRE(got[i].elapsed_s);
        CHECK(*got[i].elapsed_s > 0);
        elapsed_sum += *got[i].elapsed_s;
        CHECK(got[i].devices[0].ports[0].hw_counters[0].delta == 7u);
    }
    CHECK(elapsed_sum >= 0.04 - 1e-9);

    // A slow read (a loaded machine: 90 % or 250 % of the interval) does not
    // squeeze the next sample against it: every gap is at least half an
    // interval (in the lab a 0.2 s watch under ASan got gaps of 0.69 s then 0.15 s).
    for (const auto slow : {36ms, 100ms}) {
        CAPTURE(slow.count());
        std::uint64_t calls = 0;
        auto slow_read = [&] {
            if (++calls == 2)
                std::this_thread::sleep_for(slow);
            return one_port({reading("sent_pkts", value += 7)});
        };
        got.clear();
        run_watch({.interval_s = 0.04, .count = 4}, slow_read, [&](const WatchSample& s) { got.push_back(s); });
        REQUIRE(got.size() == 4);
        for (std::size_t i = 1; i < got.size(); ++i) {
            CAPTURE(i);
            REQUIRE(got[i].elapsed_s);
            CHECK(*got[i].elapsed_s >= 0.02);
        }
        CHECK(*got[1].elapsed_s >= 0.04 + slow.count() / 1000.0 - 1e-3);  // the slow read itself
    }

    // SIGINT/SIGTERM set the same flag as request_interrupt: after the
    // second sample the loop ends without an error, long before 10 000 samples.
    got.clear();
    run_watch({.interval_s = 0.01, .count = 10000}, read, [&](const WatchSample& s) {
        got.push_back(s);
        if (s.number == 2)
            net::request_interrupt();
    });
    CHECK(got.size() == 2);
    net::clear_interrupt();

    // An interrupt during a long wait ends the wait at once. The signaller
    // interrupts 100 ms after the first sample (not after its own start: the
    // test thread may run late), and says when.
    got.clear();
    std::promise<void> first;
    std::future<void> first_taken = first.get_future();
    std::chrono::steady_clock::time_point interrupted;
    std::thread signaller([&] {
        first_taken.wait();
        std::this_thread::sleep_for(100ms);
        net::request_interrupt();
        interrupted = std::chrono::steady_clock::now();
    });
    const auto t = std::chrono::steady_clock::now();
    const test::ThreadTime waited;
    run_watch({.interval_s = 30, .count = 0}, read, [&](const WatchSample& s) {
        got.push_back(s);
        if (got.size() == 1)
            first.set_value();
    });
    const long blocked = waited.blocked_ms();
    const auto ran = std::chrono::steady_clock::now() - t;
    signaller.join();
    CHECK(got.size() == 1);
    // It did not wait out the 30 s interval, nor sleep past the interrupt
    // (asleep no longer than until then, and 50 ms for the timers).
    CHECK(ran < 30s);
    CHECK(blocked <= std::chrono::duration_cast<std::chrono::milliseconds>(interrupted - t).count() + 50);
    net::clear_interrupt();
}
