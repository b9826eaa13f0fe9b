// The sample log: what a hot loop pushes is what the histogram gets, scaled
// and rounded, minus the warm-up, however often the buffer fills.
#include <cstdint>
#include <doctest/doctest.h>
#include <vector>

#include "src/perf/sample_log.hpp"

using namespace qps::perf;

namespace {

// Pushes `ticks` the way the ping-pong loops do: drain when full, store;
// the last drain is the caller's, after the loop. Returns the drains
// made inside the loop.
int push_all(SampleLog& log, const std::vector<std::uint64_t>& ticks, qps::report::LatencyHistogram& h)
{
    int in_loop = 0;
    std::uint64_t* cur = log.begin();
    for (const std::uint64_t t : ticks) {
        if (cur == log.end()) {
            cur = log.drain(cur, h);
            ++in_loop;
        }
        *cur++ = t;
    }
    log.drain(cur, h);
    return in_loop;
}

}  // namespace

TEST_CASE("sample log: warm-up dropped, ticks scaled and rounded, buffer refilled when full")
{
    std::vector<std::uint64_t> ticks;
    for (std::uint64_t i = 0; i < 1000; ++i)
        ticks.push_back(1000 + i * 3);  // 1000, 1003, ... 3997

    for (const std::size_t capacity : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1000},
                                       std::size_t{5000}}) {
        CAPTURE(capacity);
        qps::report::LatencyHistogram h;
        SampleLog log(capacity, 100, 0.5);  // a round trip in ns ticks, reported one-way
        // A log that holds the whole run is never drained inside the loop.
        CHECK(push_all(log, ticks, h) == static_cast<int>((ticks.size() - 1) / capacity));
        // 900 samples: ticks 1300 .. 3997, halved and rounded (3997 / 2 = 1998.5 -> 1999).
        CHECK(h.count() == 900);
        CHECK(h.min() == 650);
        CHECK(h.max() == 1999);
        // Below 2048 ns every value has its own bucket: the median is exact.
        // Samples 100..999 halved: the 450th smallest is (1000 + 549 * 3) / 2 = 1323.5 -> 1324.
        CHECK(h.quantile(0.5) == 1324);
    }
}

TEST_CASE("sample log: a skip longer than the run leaves nothing; an empty drain records nothing")
{
    qps::report::LatencyHistogram h;
    SampleLog log(4, 10, 1.0);
    push_all(log, {5, 6, 7, 8, 9, 10}, h);
    CHECK(h.count() == 0);
    push_all(log, {5, 6, 7, 8, 9, 10}, h);  // 12 pushed in all: the last two count
    CHECK(h.count() == 2);
    CHECK(h.min() == 9);
    CHECK(h.max() == 10);
    log.drain(log.begin(), h);
    CHECK(h.count() == 2);
}

TEST_CASE("sample log: capacity is every sample when it fits, else the limit")
{
    CHECK(SampleLog::capacity_for(1100, 1 << 20) == 1100);
    CHECK(SampleLog::capacity_for(std::uint64_t{1} << 40, 1 << 20) == std::size_t{1} << 20);
    CHECK(SampleLog::capacity_for(0, 16) == 0);  // the log keeps room for one anyway
    SampleLog zero(0, 0, 1.0);
    CHECK(zero.end() - zero.begin() == 1);
}

namespace {

// Pushes (round trip, post tick) pairs the way the client's loop does.
int push_posted(PostedSampleLog& log, const std::vector<std::uint64_t>& round_trips,
                const std::vector<std::uint64_t>& posts, qps::report::LatencyHistogram& rt, qps::report::LatencyHistogram& period)
{
    int in_loop = 0;
    std::uint64_t* cur = log.begin();
    for (std::size_t i = 0; i < posts.size(); ++i) {
        if (cur == log.end()) {
            cur = log.drain(cur, rt, period);
            ++in_loop;
        }
        cur[0] = round_trips[i];
        cur[1] = posts[i];
        cur += 2;
    }
    log.drain(cur, rt, period);
    return in_loop;
}

}  // namespace

TEST_CASE("posted sample log: periods from consecutive posts, warm-up dropped, one less than round trips")
{
    // 1000 messages posted 100 + i ticks apart (so period i = 100 + i + 1);
    // round trip i = 50 + i.
    std::vector<std::uint64_t> rts, posts;
    std::uint64_t t = 1'000'000;
    for (std::uint64_t i = 0; i < 1000; ++i) {
        rts.push_back(50 + i);
        posts.push_back(t);
        t += 100 + i + 1;
    }
    qps::report::LatencyHistogram rt, period;
    PostedSampleLog log(1000, 10, 1.0);
    CHECK(push_posted(log, rts, posts, rt, period) == 0);
    CHECK(rt.count() == 990);
    CHECK(rt.min() == 60);
    CHECK(rt.max() == 1049);
    // Periods of messages 10..998 (message 999 has no next post).
    CHECK(period.count() == 989);
    CHECK(period.min() == 111);
    CHECK(period.max() == 1099);
}

TEST_CASE("posted sample log: a drain inside the loop drops the one period it falls in, and only that")
{
    std::vector<std::uint64_t> rts(100, 7), posts;
    for (std::uint64_t i = 0; i < 100; ++i)
        posts.push_back(1000 * i);  // every period 1000 ticks
    for (const std::size_t capacity : {std::size_t{1}, std::size_t{3}, std::size_t{10}, std::size_t{99}}) {
        CAPTURE(capacity);
        qps::report::LatencyHistogram rt, period;
        PostedSampleLog log(capacity, 0, 0.5);  // halved, as for send and write
        const int drains = push_posted(log, rts, posts, rt, period);
        CHECK(drains == static_cast<int>((posts.size() - 1) / capacity));
        CHECK(rt.count() == 100);
        CHECK(rt.max() == 4);  // 7 / 2 = 3.5 -> 4
        // The drain before storing message m (m = capacity, 2 capacity, ...)
        // falls in the period from m to m + 1: dropped, when m + 1 exists.
        const std::uint64_t dropped = (posts.size() - 2) / capacity;
        CHECK(period.count() == 99 - dropped);
        CHECK(period.min() == 500);
        CHECK(period.max() == 500);
    }
}

TEST_CASE("posted sample log: capacity is what the words hold, two a message")
{
    CHECK(PostedSampleLog::capacity_for(1100, 1 << 20) == 1100);
    CHECK(PostedSampleLog::capacity_for(std::uint64_t{1} << 40, 1 << 20) == std::size_t{1} << 19);
    PostedSampleLog zero(0, 0, 1.0);
    CHECK(zero.end() - zero.begin() == 2);
}
