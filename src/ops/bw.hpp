// `qpscope bw`: the whole bandwidth test on one side. As in ping-pong the
// client's parameters rule and the server adopts them over the
// out-of-band exchange; each size runs between two barriers, the data that
// arrived is checked against the pattern sent, and the server's figures
// come back to the client, so one report holds both sides.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "src/perf/link_common.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::ops {

struct BwOptions : perf::LinkOptions {
    BwOptions()
    {
        op = perf::Op::write;
        sizes = {65536};
        iterations = 5000;
        warmup = 100;
    }
    std::uint32_t tx_depth = 128, rx_depth = 512, post_list = 1;
    std::uint32_t cq_mod = 0;  // 0: min(64, tx_depth)
    std::uint32_t qps = 1;  // per thread (threads: src/perf/bw/worker.hpp)
    bool bidir = false;
    // --srq (perftest's --use_srq), --op send: a receiving side's QPs take
    // their receives from one shared receive queue of rx_depth.
    bool srq = false;
    double window_ms = 10;
    std::string unit = "Gb/s";
};

// UsageError naming the option and what is valid.
void check_bw_options(const BwOptions& o);

// `progress(size, seconds, bytes_per_s)` about once a second of a run,
// `size_done(result)` after each size (both may be empty). A run that ended
// early returns a report with aborted set (the caller exits 3).
report::BwReport run_bw(const BwOptions& o, const std::function<void(std::uint32_t, double, double)>& progress = {},
                        const std::function<void(const report::BwSizeResult&)>& size_done = {});

}  // namespace qps::ops
