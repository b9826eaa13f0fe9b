// `qpscope ping-pong`: the whole test on one side. The client parses every
// parameter and sends it; the server adopts it over the out-of-band
// exchange; each size runs between two barriers; the server's figures come
// back to the client, so one report holds both sides.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/perf/pingpong/loop.hpp"
#include "src/report/latency.hpp"

namespace qps::ops {

struct PingPongOptions : perf::LinkOptions {
    std::size_t histogram_rows = 0;  // 0: no histogram
    // --srq (perftest's --use_srq), --op send: a side's QPs (one per
    // --threads pair) take their receives from one shared receive queue.
    bool srq = false;
};

// Validates op × transport and sizes against the MTU for UD; throws UsageError.
void check_combination(const PingPongOptions& o);

// Runs the client or server side; a watchdog abort returns a report with
// aborted set (the caller exits 3). `progress` (may be empty) is called
// after each size.
report::PingPongReport run_ping_pong(const PingPongOptions& o,
                                     const std::function<void(const report::SizeResult&)>& progress = {});

}  // namespace qps::ops
