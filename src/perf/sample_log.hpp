// Raw latency samples kept during a hot loop and binned after it.
//
// The ping-pong loops store one clock-tick difference per message into a
// buffer allocated (and touched) before the loop: one store and one
// compare, as cheap as perftest's timestamp array. Converting ticks to
// nanoseconds and recording into the report::LatencyHistogram (min, max, sum,
// Welford mean/variance, bucket index: ~60 instructions) happens in
// drain(): after the loop, or inside it only when the buffer is full
// (runs longer than the buffer, e.g. -D), between two timed windows.
//
// The first `skip` samples pushed (the warm-up) are dropped when drained.
//
// The client's loop keeps a second figure, the loop period (from posting
// message i to posting message i + 1: perftest's ib_*_lat sample), at the
// cost of one more store: a PostedSampleLog holds pairs (round trip, post
// tick) and derives each period from consecutive post ticks when drained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/report/histogram.hpp"

namespace qps::perf {

class SampleLog {
public:
    // Room for `capacity` samples (at least 1); `ns_per_sample_tick` turns
    // a pushed tick difference into the recorded nanoseconds (for a round
    // trip reported one-way: half the ns per tick).
    SampleLog(std::size_t capacity, std::uint64_t skip, double ns_per_sample_tick)
        : buf_(capacity ? capacity : 1), skip_(skip), scale_(ns_per_sample_tick)
    {
    }

    std::uint64_t* begin() noexcept { return buf_.data(); }
    std::uint64_t* end() noexcept { return buf_.data() + buf_.size(); }

    // Records buf[0..filled) into `into` (minus what is still to skip) and
    // returns begin() for the next samples. Not inline: it runs once a
    // buffer, never in the timed part of a loop.
    [[gnu::noinline]] std::uint64_t* drain(const std::uint64_t* filled, report::LatencyHistogram& into) noexcept
    {
        const std::uint64_t* p = buf_.data();
        for (; p != filled && skip_ > 0; ++p)
            --skip_;
        for (; p != filled; ++p)
            into.record(static_cast<std::uint64_t>(static_cast<double>(*p) * scale_ + 0.5));
        return buf_.data();
    }

    // The buffer size for a run: every sample when that fits in `limit`,
    // else `limit` (drained whenever full).
    static std::size_t capacity_for(std::uint64_t samples, std::size_t limit) noexcept
    {
        return samples < limit ? static_cast<std::size_t>(samples) : limit;
    }

private:
    std::vector<std::uint64_t> buf_;  // value-initialised: every page touched before the loop
    std::uint64_t skip_;
    double scale_;
};

// The client's log: per message, its round trip in ticks and the tick it
// was posted at (two stores). drain() records the round trips into one
// histogram and the periods (post tick of i + 1 minus that of i) into
// another. Message i's period needs message i + 1's post: the last message
// of a run has none, so a run has one period less than round trips. A
// drain inside the loop happens after message k's post (just before k is
// stored, first in the emptied buffer) and before message k + 1's: the
// period from k to k + 1 includes the drain and is dropped.
class PostedSampleLog {
public:
    // Room for `capacity` messages (at least 1): 2 words each.
    PostedSampleLog(std::size_t capacity, std::uint64_t skip, double ns_per_sample_tick)
        : buf_(2 * (capacity ? capacity : 1)), skip_(skip), scale_(ns_per_sample_tick)
    {
    }

    std::uint64_t* begin() noexcept { return buf_.data(); }
    std::uint64_t* end() noexcept { return buf_.data() + buf_.size(); }

    // Records buf[0..filled) (pairs) and returns begin() for the next ones.
    [[gnu::noinline]] std::uint64_t* drain(const std::uint64_t* filled, report::LatencyHistogram& round_trips,
                                           report::LatencyHistogram& periods) noexcept
    {
        for (const std::uint64_t* p = buf_.data(); p < filled; p += 2) {
            const std::uint64_t round_trip = p[0], posted = p[1];
            const std::uint64_t index = pushed_++;  // this message's index in the run
            if (index >= skip_)
                round_trips.record(to_ns(round_trip));
            // The previous message's period ends at this post.
            if (index > skip_ && !prev_spans_drain_)
                periods.record(to_ns(posted - prev_posted_));
            prev_posted_ = posted;
            // The first message after a drain: its period includes that drain.
            prev_spans_drain_ = p == buf_.data() && drained_;
        }
        drained_ = true;
        return buf_.data();
    }

    // Messages for a run: every one when that fits in `limit` words, else
    // what `limit` words hold (drained whenever full).
    static std::size_t capacity_for(std::uint64_t messages, std::size_t limit_words) noexcept
    {
        const std::size_t limit = limit_words / 2;
        return messages < limit ? static_cast<std::size_t>(messages) : limit;
    }

private:
    std::uint64_t to_ns(std::uint64_t ticks) const noexcept
    {
        return static_cast<std::uint64_t>(static_cast<double>(ticks) * scale_ + 0.5);
    }

    std::vector<std::uint64_t> buf_;  // value-initialised: every page touched before the loop
    std::uint64_t skip_;
    double scale_;
    std::uint64_t pushed_ = 0;       // messages drained so far
    std::uint64_t prev_posted_ = 0;  // the post tick of the last message drained
    bool drained_ = false;           // a drain came before this buffer
    bool prev_spans_drain_ = false;  // the last message drained was the first after a drain
};

}  // namespace qps::perf
