// Bandwidth figures of one size on one side, and the whole bw report.
// Rates are kept in bytes/s and messages/s; units are a matter of display.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/json.hpp"
#include "src/report/link_header.hpp"

namespace qps::report {

// One direction as one side saw it: what it sent (tx, from send
// completions) or what it received (rx, from receive completions).
struct DirectionStats {
    std::uint64_t messages = 0, bytes = 0;
    double seconds = 0;             // the measured span
    double bytes_per_s = 0;         // bytes / seconds
    double peak_bytes_per_s = 0;    // best complete window
    double min_bytes_per_s = 0;     // worst complete window
    std::uint64_t windows = 0;      // complete windows (0: span shorter than one window)
    double messages_per_s = 0;
    // bw --threads, a side's total: the time all its threads were measuring
    // at once (seconds runs from the first thread's start to the last one's
    // end). 0 for one thread.
    double overlap_seconds = 0;
};

// One worker thread of a side (bw --threads): its own QPs, CPU and span.
struct ThreadStats {
    std::uint32_t index = 0;
    int cpu = -1;  // the CPU it was pinned to
    std::optional<DirectionStats> tx, rx;
    double cpu_user_s = 0, cpu_sys_s = 0, cpu_wall_s = 0;
    double cpu_percent = 0;
    bool aborted = false;
    std::string abort_reason;
};

// bw --srq, a receiving side: its one shared receive queue and the QPs it
// served in a size's run.
struct SrqUse {
    std::uint32_t depth = 0;   // receives it holds (--rx-depth)
    std::uint32_t qps = 0;     // the side's QPs that take their receives from it
    std::uint32_t served = 0;  // of them, QPs that completed at least one receive from it
};

struct SideStats {
    std::uint32_t size = 0;
    std::optional<DirectionStats> tx, rx;
    double cpu_user_s = 0, cpu_sys_s = 0, cpu_wall_s = 0;
    double cpu_percent = 0;        // (user + sys) / wall, of one CPU (N threads: up to N x 100)
    std::vector<ThreadStats> threads;  // bw --threads N > 1: each thread; tx and rx above are the total
    std::string verified;          // "ok", "not checked (...)" or "MISMATCH ..."
    bool verify_failed = false;
    bool aborted = false;
    std::string abort_reason;
    // --op fadd|cas, a target: its QPs' counters after the size, summed (the
    // poster compares them with the atomics it completed).
    std::optional<std::uint64_t> atomic_counter;
    std::optional<SrqUse> srq;  // --srq, a side that receives
};

Json to_json(const SideStats& s);
SideStats side_stats_from_json(const Json& j);  // OperationError on a malformed peer report

struct BwSizeResult {
    SideStats local;
    std::optional<SideStats> peer;
};

struct BwReport : LinkHeader {
    bool bidir = false;
    bool srq = false;  // --srq: a receiving side's QPs share one SRQ of rx_depth
    std::uint32_t qps = 1, tx_depth = 0, rx_depth = 0, post_list = 1, cq_mod = 1;
    double window_ms = 10;
    std::string unit;
    std::vector<BwSizeResult> sizes;
    bool aborted = false;
    std::string abort_reason;
    // The run stalled while the peer answered, and both sides' RoCE packets
    // show where they stopped (abort_reason says it): a fault of the path,
    // not a lost peer (exit 1, not 3).
    bool stalled_on_path = false;
    bool verify_failed = false;
};

// Display units: bits or bytes per second at a decimal or binary scale.
struct RateUnit {
    std::string_view name;     // as typed and shown: "Gb/s"
    double bytes_per_s;        // one unit in bytes per second
};
const std::vector<RateUnit>& rate_units();
// UsageError naming the valid units.
const RateUnit& rate_unit(std::string_view name);

}  // namespace qps::report
