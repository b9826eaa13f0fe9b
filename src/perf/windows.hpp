// Peak and minimum bandwidth over fixed windows, in constant memory.
//
// Completions arrive in batches (one signalled completion per cq-mod
// messages), so the bytes of a batch are spread evenly over the time since
// the previous batch, and every window of `window` ticks that this time
// covers gets its share. A window that nothing reached (a stall) counts
// with 0 bytes. Peak and minimum are taken over complete windows, and over
// the last partial one if it spans at least half a window (at its own
// rate); a span shorter than one window yields its average as peak and
// minimum (windows() == 0 says so).
#pragma once

#include <cstdint>

namespace qps::perf {

class WindowMeter {
public:
    // start: the tick the measured span begins; window: ticks per window (> 0).
    WindowMeter(std::uint64_t start, std::uint64_t window);

    // `bytes` completed at tick `now` (>= the previous call's now).
    void add(std::uint64_t now, std::uint64_t bytes);
    // Ends the span at `end` (>= the last add).
    void finish(std::uint64_t end);

    std::uint64_t bytes() const { return total_; }
    std::uint64_t windows() const { return windows_; }
    // Bytes per tick.
    double average() const;
    double peak() const;
    double minimum() const;

private:
    void close_window();

    std::uint64_t start_, window_;
    std::uint64_t last_;          // the tick up to which bytes were accounted
    std::uint64_t window_end_;    // the tick the current window ends
    double current_ = 0;          // bytes in the current window so far
    std::uint64_t total_ = 0;
    std::uint64_t end_ = 0;
    std::uint64_t windows_ = 0;
    double peak_ = 0, min_ = 0;   // bytes per window
};

}  // namespace qps::perf
