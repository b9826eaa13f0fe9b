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

#include <cstddef>
#include <cstdint>
#include <vector>

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

// Bytes per fixed window on a grid whose origin and width several threads
// share, so that their windows line up and add up (bw --threads). A batch
// of bytes is spread evenly over the ticks since the thread's previous
// batch, as in WindowMeter. Memory grows with the span: `reserve` windows
// are allocated up front, so a span that fits never allocates in the loop.
class WindowGrid {
public:
    WindowGrid(std::uint64_t origin, std::uint64_t window, std::size_t reserve);

    // `bytes` completed over the ticks (from, to]; from <= to, both >= origin.
    void add(std::uint64_t from, std::uint64_t to, std::uint64_t bytes);

    std::uint64_t origin() const { return origin_; }
    std::uint64_t window() const { return window_; }
    std::size_t size() const { return bins_.size(); }
    // Bytes in window i (0 beyond the last one touched).
    double at(std::size_t i) const { return i < bins_.size() ? bins_[i] : 0.0; }

private:
    std::uint64_t origin_, window_;
    std::vector<double> bins_;
};

// Peak and minimum of the sum of several grids (same origin and window)
// over the windows that lie wholly inside [from, to]: bytes per tick;
// windows = 0 when none does.
struct GridSum {
    double peak = 0, minimum = 0;
    std::uint64_t windows = 0;
};
GridSum sum_windows(const std::vector<const WindowGrid*>& grids, std::uint64_t from, std::uint64_t to);

}  // namespace qps::perf
