#include "src/perf/rate_windows.hpp"

#include <algorithm>

namespace qps::perf {

WindowMeter::WindowMeter(std::uint64_t start, std::uint64_t window)
    : start_(start), window_(std::max<std::uint64_t>(window, 1)), last_(start), window_end_(start + window_),
      end_(start)
{
}

void WindowMeter::close_window()
{
    peak_ = windows_ == 0 ? current_ : std::max(peak_, current_);
    min_ = windows_ == 0 ? current_ : std::min(min_, current_);
    ++windows_;
    current_ = 0;
    window_end_ += window_;
}

void WindowMeter::add(std::uint64_t now, std::uint64_t bytes)
{
    total_ += bytes;
    if (now <= last_) {  // no time passed: the bytes belong to the current window
        current_ += static_cast<double>(bytes);
        return;
    }
    const double per_tick = static_cast<double>(bytes) / static_cast<double>(now - last_);
    std::uint64_t from = last_;
    while (from < now) {
        const std::uint64_t to = std::min(now, window_end_);
        current_ += per_tick * static_cast<double>(to - from);
        from = to;
        if (from != window_end_)
            continue;
        close_window();
        // The whole windows ahead hold per_tick * window bytes each: closed
        // at once, with the values one by one would give (current_ is 0 after
        // a close, and 0 + x is x), so a batch after a long gap costs what a
        // short one does (bw's 64 KiB messages span several windows each).
        if (const std::uint64_t k = (now - from) / window_; k > 0) {
            const double full = per_tick * static_cast<double>(window_);
            peak_ = std::max(peak_, full);
            min_ = std::min(min_, full);
            windows_ += k;
            window_end_ += k * window_;
            from += k * window_;
        }
    }
    last_ = now;
    end_ = now;
}

void WindowMeter::finish(std::uint64_t end)
{
    // Time without completions at the end still closes the windows it fills.
    if (end > last_)
        add(end, 0);
    end_ = std::max(end_, end);
    // A last partial window of at least half a window counts, at its rate.
    const std::uint64_t partial = end_ - (window_end_ - window_);
    if (windows_ > 0 && 2 * partial >= window_ && partial < window_) {
        const double scaled = current_ * static_cast<double>(window_) / static_cast<double>(partial);
        peak_ = std::max(peak_, scaled);
        min_ = std::min(min_, scaled);
        ++windows_;
        current_ = 0;
        window_end_ += window_;
    }
}

double WindowMeter::average() const
{
    return end_ > start_ ? static_cast<double>(total_) / static_cast<double>(end_ - start_) : 0.0;
}

double WindowMeter::peak() const { return windows_ ? peak_ / static_cast<double>(window_) : average(); }
double WindowMeter::minimum() const { return windows_ ? min_ / static_cast<double>(window_) : average(); }

WindowGrid::WindowGrid(std::uint64_t origin, std::uint64_t window, std::size_t reserve)
    : origin_(origin), window_(std::max<std::uint64_t>(window, 1))
{
    bins_.reserve(reserve);
}

void WindowGrid::add(std::uint64_t from, std::uint64_t to, std::uint64_t bytes)
{
    from = std::max(from, origin_);
    to = std::max(to, from);
    const std::size_t last = static_cast<std::size_t>((to - origin_) / window_);
    if (last >= bins_.size())
        bins_.resize(last + 1, 0.0);
    if (to == from) {
        bins_[last] += static_cast<double>(bytes);
        return;
    }
    const double per_tick = static_cast<double>(bytes) / static_cast<double>(to - from);
    std::uint64_t at = from;
    while (at < to) {
        const std::size_t i = static_cast<std::size_t>((at - origin_) / window_);
        const std::uint64_t bin_end = origin_ + (i + 1) * window_;
        const std::uint64_t until = std::min(to, bin_end);
        bins_[i] += per_tick * static_cast<double>(until - at);
        at = until;
    }
}

GridSum sum_windows(const std::vector<const WindowGrid*>& grids, std::uint64_t from, std::uint64_t to)
{
    GridSum out;
    if (grids.empty() || to <= from)
        return out;
    const std::uint64_t origin = grids.front()->origin(), window = grids.front()->window();
    if (to <= origin)
        return out;
    from = std::max(from, origin);
    // The first window starting at or after `from`, the last ending at or before `to`.
    const std::uint64_t first = (from - origin + window - 1) / window;
    const std::uint64_t end = (to - origin) / window;  // one past the last whole window
    for (std::uint64_t i = first; i < end; ++i) {
        double sum = 0;
        for (const WindowGrid* g : grids)
            sum += g->at(static_cast<std::size_t>(i));
        out.peak = out.windows == 0 ? sum : std::max(out.peak, sum);
        out.minimum = out.windows == 0 ? sum : std::min(out.minimum, sum);
        ++out.windows;
    }
    out.peak /= static_cast<double>(window);
    out.minimum /= static_cast<double>(window);
    return out;
}

}  // namespace qps::perf
