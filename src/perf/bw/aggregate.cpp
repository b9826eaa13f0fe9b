#include "src/perf/bw/aggregate.hpp"

#include <algorithm>

namespace qps::perf {

std::optional<report::DirectionStats> aggregate(const std::vector<ThreadSpan>& spans, double ticks_per_s)
{
    if (spans.empty() || ticks_per_s <= 0)
        return std::nullopt;
    report::DirectionStats d;
    std::uint64_t first_start = spans.front().start_tick, last_end = spans.front().end_tick;
    std::uint64_t last_start = first_start, first_end = last_end;
    std::vector<const WindowGrid*> grids;
    for (const ThreadSpan& s : spans) {
        d.messages += s.stats.messages;
        d.bytes += s.stats.bytes;
        first_start = std::min(first_start, s.start_tick);
        last_start = std::max(last_start, s.start_tick);
        first_end = std::min(first_end, s.end_tick);
        last_end = std::max(last_end, s.end_tick);
        if (s.grid)
            grids.push_back(s.grid);
    }
    d.seconds = static_cast<double>(last_end - first_start) / ticks_per_s;
    d.overlap_seconds = first_end > last_start ? static_cast<double>(first_end - last_start) / ticks_per_s : 0.0;
    d.bytes_per_s = d.seconds > 0 ? static_cast<double>(d.bytes) / d.seconds : 0;
    d.messages_per_s = d.seconds > 0 ? static_cast<double>(d.messages) / d.seconds : 0;
    const GridSum w = grids.size() == spans.size() ? sum_windows(grids, last_start, first_end) : GridSum{};
    d.windows = w.windows;
    d.peak_bytes_per_s = w.windows ? w.peak * ticks_per_s : d.bytes_per_s;
    d.min_bytes_per_s = w.windows ? w.minimum * ticks_per_s : d.bytes_per_s;
    return d;
}

}  // namespace qps::perf
