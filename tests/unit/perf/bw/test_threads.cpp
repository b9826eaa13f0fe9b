// bw --threads: the shared window grid, a side's total from its threads'
// spans, the choice of CPUs and the option checks.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/ops/bw.hpp"
#include "src/perf/bw/aggregate.hpp"
#include "src/perf/cpu.hpp"
#include "src/perf/rate_windows.hpp"

using namespace qps::perf;

namespace {

// A thread that moved `bytes` between two ticks at a steady rate, with its
// windows on a grid of 100 ticks from tick 0.
struct Steady {
    WindowGrid grid{0, 100, 16};
    ThreadSpan span;
    Steady(std::uint64_t start, std::uint64_t end, std::uint64_t bytes)
    {
        grid.add(start, end, bytes);
        span.stats.messages = bytes / 10;
        span.stats.bytes = bytes;
        span.start_tick = start;
        span.end_tick = end;
        span.grid = &grid;
    }
};

}  // namespace

TEST_CASE("window grid: a batch is spread evenly over the windows its ticks cover")
{
    WindowGrid g(1000, 100, 4);
    g.add(1050, 1250, 400);  // 2 bytes a tick: 100 in window 0, 200 in 1, 100 in 2
    CHECK(g.at(0) == doctest::Approx(100));
    CHECK(g.at(1) == doctest::Approx(200));
    CHECK(g.at(2) == doctest::Approx(100));
    CHECK(g.at(3) == 0);
    g.add(1250, 1250, 7);  // no time passed: all in the window of that tick
    CHECK(g.at(2) == doctest::Approx(107));
    g.add(1990, 2000, 10);  // grows past what was reserved
    CHECK(g.size() == 11);
    CHECK(g.at(9) == doctest::Approx(10));
}

TEST_CASE("window sums: only windows wholly inside [from, to] count")
{
    WindowGrid a(0, 100, 8), b(0, 100, 8);
    a.add(0, 400, 400);  // 100 a window
    b.add(100, 300, 400);  // 200 in windows 1 and 2
    const GridSum s = sum_windows({&a, &b}, 50, 350);  // windows 1 and 2
    CHECK(s.windows == 2);
    CHECK(s.peak == doctest::Approx(3.0));  // 300 bytes / 100 ticks
    CHECK(s.minimum == doctest::Approx(3.0));
    CHECK(sum_windows({&a, &b}, 120, 180).windows == 0);
    const GridSum all = sum_windows({&a, &b}, 0, 400);
    CHECK(all.windows == 4);
    CHECK(all.peak == doctest::Approx(3.0));
    CHECK(all.minimum == doctest::Approx(1.0));
}

TEST_CASE("aggregate: threads at the same time add up")
{
    Steady a(0, 1000, 10000), b(0, 1000, 10000);
    const auto d = aggregate({a.span, b.span}, 1000.0);  // 1000 ticks a second
    REQUIRE(d.has_value());
    CHECK(d->bytes == 20000);
    CHECK(d->messages == 2000);
    CHECK(d->seconds == doctest::Approx(1.0));
    CHECK(d->overlap_seconds == doctest::Approx(1.0));
    CHECK(d->bytes_per_s == doctest::Approx(20000));
    CHECK(d->windows == 10);
    CHECK(d->peak_bytes_per_s == doctest::Approx(20000));
    CHECK(d->min_bytes_per_s == doctest::Approx(20000));
}

TEST_CASE("aggregate: threads one after the other do not add up")
{
    // What adding the figures of two ib_write_bw processes would call 20,000 B/s.
    Steady a(0, 1000, 10000), b(1000, 2000, 10000);
    const auto d = aggregate({a.span, b.span}, 1000.0);
    REQUIRE(d.has_value());
    CHECK(d->seconds == doctest::Approx(2.0));
    CHECK(d->bytes_per_s == doctest::Approx(10000));
    CHECK(d->overlap_seconds == 0);
    CHECK(d->windows == 0);  // no window with both measuring: peak and min are the average
    CHECK(d->peak_bytes_per_s == doctest::Approx(10000));
}

TEST_CASE("aggregate: partly overlapping threads, windows from the overlap only")
{
    Steady a(0, 1000, 10000), b(500, 1500, 20000);
    const auto d = aggregate({a.span, b.span}, 1000.0);
    REQUIRE(d.has_value());
    CHECK(d->seconds == doctest::Approx(1.5));
    CHECK(d->overlap_seconds == doctest::Approx(0.5));
    CHECK(d->bytes_per_s == doctest::Approx(20000));  // 30,000 bytes in 1.5 s
    CHECK(d->windows == 5);
    CHECK(d->peak_bytes_per_s == doctest::Approx(30000));  // 10 + 20 bytes a tick
    CHECK(d->min_bytes_per_s == doctest::Approx(30000));
    CHECK_FALSE(aggregate({}, 1000.0).has_value());
}

TEST_CASE("choose_cpus: the NIC's node first, each CPU once, only allowed ones")
{
    using V = std::vector<int>;
    CHECK(choose_cpus(2, {0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7}) == V{4, 5});
    CHECK(choose_cpus(6, {0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7}) == V{4, 5, 6, 7, 0, 1});
    CHECK(choose_cpus(2, {0, 1, 6}, {4, 5, 6, 7}) == V{6, 0});  // 4 and 5 not allowed
    CHECK(choose_cpus(3, {0, 1}, {}) == V{0, 1});               // fewer than asked: the caller says so
    CHECK(choose_cpus(2, {2, 3}, {}) == V{2, 3});
}

TEST_CASE("bw options: threads, cpus and -c are checked, each named in the core's words")
{
    BwOptions o;
    o.threads = 2;
    CHECK_NOTHROW(check_bw_options(o));
    o.threads = 0;
    CHECK_THROWS_WITH_AS(check_bw_options(o), "the thread count 0 is out of range: valid are 1..64", qps::UsageError);
    o.threads = 65;
    CHECK_THROWS_AS(check_bw_options(o), qps::UsageError);
    o.threads = 3;
    o.cpus = {0, 1};
    CHECK_THROWS_WITH_AS(check_bw_options(o),
                         "the CPU list names 2 CPUs for 3 threads: name one per thread (a CPU may repeat)",
                         qps::UsageError);
    o.cpus = {};
    o.cpu = 1;
    // Three things given in one message: each is marked, for the command
    // line to spell (commands/spellings.cpp; tests/unit/cli/test_spellings.cpp).
    try {
        check_bw_options(o);
        FAIL("no UsageError");
    } catch (const qps::UsageError& e) {
        CHECK(std::string(e.what()) ==
              "the CPU 1 pins the one thread of a run; with the thread count 3 give the CPU list, one CPU per thread");
        CHECK(e.naming([](qps::Given g) { return "<" + std::string(qps::given_name(g)) + ">"; }) ==
              "<cpu> 1 pins the one thread of a run; with <threads> 3 give <cpus>, one CPU per thread");
    }
    o.threads = 1;
    CHECK_NOTHROW(check_bw_options(o));
}

TEST_CASE("worker CPUs: one thread is pinned by -c alone, --cpus outside the affinity is named")
{
    BwOptions o;
    CHECK(worker_cpus(o, "").empty());
    o.threads = 2;
    o.cpus = {4095};
    o.cpus.push_back(4094);
    CHECK_THROWS_AS(worker_cpus(o, ""), qps::UsageError);
    try {
        worker_cpus(o, "");
    } catch (const qps::UsageError& e) {
        CHECK(std::string(e.what()).find("the CPU list 4095: this process may run on CPUs") != std::string::npos);
    }
}
