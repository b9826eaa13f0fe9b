// bw --threads: a side's total from its threads' spans. The total is the
// bytes of every thread over one span, from the first thread's start to the
// last one's end, so threads that did not run at the same time cannot add
// up to more than they moved together (the error of adding the figures of
// separate ib_write_bw processes). Peak and minimum are the sums of the
// threads' windows on one grid, over the windows in which every thread was
// measuring.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "src/perf/rate_windows.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::perf {

struct ThreadSpan {
    report::DirectionStats stats;
    std::uint64_t start_tick = 0, end_tick = 0;
    const WindowGrid* grid = nullptr;  // same origin and window for every thread
};

// nullopt when no thread measured anything.
std::optional<report::DirectionStats> aggregate(const std::vector<ThreadSpan>& spans, double ticks_per_s);

}  // namespace qps::perf
