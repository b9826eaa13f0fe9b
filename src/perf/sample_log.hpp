// Raw latency samples kept during a hot loop and binned after it.
//
// The ping-pong loops store one clock-tick difference per message into a
// buffer allocated (and touched) before the loop: one store and one
// compare, as cheap as perftest's timestamp array. Converting ticks to
// nanoseconds and recording into the LatencyHistogram (min, max, sum,
// Welford mean/variance, bucket index: ~60 instructions) happens in
// drain(): after the loop, or inside it only when the buffer is full
// (runs longer than the buffer, e.g. -D), between two timed windows.
//
// The first `skip` samples pushed (the warm-up) are dropped when drained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/perf/histogram.hpp"

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
    [[gnu::noinline]] std::uint64_t* drain(const std::uint64_t* filled, LatencyHistogram& into) noexcept
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

}  // namespace qps::perf
