// One direction's measured span of a bw run (src/perf/bw/loop.cpp): pure
// bookkeeping over completion counts and clock ticks, inline for the loop.
#pragma once

#include <cstdint>
#include <optional>

#include "src/perf/clock.hpp"
#include "src/perf/rate_windows.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::perf {

// One direction's measured span: started at a completion count, ended at
// another (-n) or after a duration (-D).
class Span {
public:
    Span(std::uint64_t start_count, std::uint64_t end_count, std::uint64_t window_ticks, std::uint32_t size,
         WindowGrid* grid = nullptr)
        : start_count_(start_count), end_count_(end_count), window_ticks_(window_ticks), size_(size), grid_(grid)
    {
    }

    // `total` messages have completed by tick `now`, `fresh` of them new;
    // `may_start`: the crew lets the span start (bw --threads -D).
    void advance(std::uint64_t now, std::uint64_t total, std::uint64_t fresh, bool may_start = true)
    {
        if (ended_)
            return;
        if (!meter_) {
            if (total < start_count_ || !may_start)
                return;
            meter_.emplace(now, window_ticks_);
            start_tick_ = now;
            start_total_ = total;  // the batch that crossed the threshold is before the span
            end_tick_ = now;
            end_total_ = total;
            return;
        }
        meter_->add(now, fresh * size_);
        if (grid_)
            grid_->add(end_tick_, now, fresh * size_);
        end_tick_ = now;
        end_total_ = total;
        if (total >= end_count_)
            end(now);
    }

    void end(std::uint64_t now)
    {
        if (ended_ || !meter_)
            return;
        ended_ = true;
        meter_->finish(now);
        end_tick_ = now;
    }

    bool started() const { return meter_.has_value(); }
    bool ended() const { return ended_; }
    bool reached_start(std::uint64_t total) const { return total >= start_count_; }
    std::uint64_t start_tick() const { return start_tick_; }
    std::uint64_t end_tick() const { return end_tick_; }

    std::optional<report::DirectionStats> stats(const Clock& clock) const
    {
        if (!meter_)
            return std::nullopt;
        report::DirectionStats d;
        const double ticks_per_s = clock.info().ticks_per_ns * 1e9;
        d.messages = end_total_ - start_total_;
        d.bytes = d.messages * size_;
        d.seconds = clock.to_ns(end_tick_ - start_tick_) / 1e9;
        d.bytes_per_s = d.seconds > 0 ? static_cast<double>(d.bytes) / d.seconds : 0;
        d.messages_per_s = d.seconds > 0 ? static_cast<double>(d.messages) / d.seconds : 0;
        d.windows = meter_->windows();
        d.peak_bytes_per_s = d.windows ? meter_->peak() * ticks_per_s : d.bytes_per_s;
        d.min_bytes_per_s = d.windows ? meter_->minimum() * ticks_per_s : d.bytes_per_s;
        return d;
    }

private:
    std::uint64_t start_count_, end_count_, window_ticks_;
    std::uint32_t size_;
    WindowGrid* grid_;
    std::optional<WindowMeter> meter_;
    std::uint64_t start_tick_ = 0, end_tick_ = 0, start_total_ = 0, end_total_ = 0;
    bool ended_ = false;
};

}  // namespace qps::perf
