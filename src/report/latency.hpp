// Latency figures of one size on one side, and the whole ping-pong report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/json.hpp"
#include "src/report/histogram.hpp"
#include "src/report/link_header.hpp"

namespace qps::report {

// The statistics of one figure: exact min, max, mean and stddev, bucketed
// percentiles.
struct Spread {
    std::uint64_t samples = 0;
    std::uint64_t min_ns = 0, max_ns = 0;
    double mean_ns = 0, stddev_ns = 0;
    std::uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, p9999_ns = 0;
};
Spread spread_of(const LatencyHistogram& h);

// The figures above (min_ns .. p9999_ns) are the round trip: from just
// before message i is posted to just after its reply is seen. `period` is
// the loop period: from the post of message i to the post of i + 1, the
// whole loop included (reposting the receive, reaping sends, storing the
// sample, the clock reads): perftest's ib_*_lat sample. Both are halved
// for send and write (one-way), whole for read. A server's sample is
// answer to answer, so its two figures are the same.
struct LatencyStats {
    std::uint32_t size = 0;
    std::uint64_t samples = 0;
    std::uint64_t min_ns = 0, max_ns = 0;
    double mean_ns = 0, stddev_ns = 0;
    std::uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, p9999_ns = 0;
    Spread period;
    double seconds = 0;
    bool aborted = false;
    std::string abort_reason;
    std::vector<LatencyHistogram::Bucket> histogram;  // coarse rows, for --histogram
    // ping-pong --threads N > 1: the figures above are all pairs' samples
    // together (seconds: from the first pair's start to the last one's end);
    // each pair's own follow, with its thread index and CPU.
    std::vector<LatencyStats> threads;
    std::uint32_t thread = 0;
    int cpu = -1;
    // --op fadd|cas, the server: what its counters (the first 8 bytes of
    // each pair's buffer, zeroed before the size) held after it, summed.
    std::optional<std::uint64_t> atomic_counter;
    double messages_per_s() const { return seconds > 0 ? static_cast<double>(samples) / seconds : 0.0; }
    Spread round_trip() const
    {
        return {samples, min_ns, max_ns, mean_ns, stddev_ns, p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns};
    }
    void set_round_trip(const Spread& r)
    {
        samples = r.samples;
        min_ns = r.min_ns;
        max_ns = r.max_ns;
        mean_ns = r.mean_ns;
        stddev_ns = r.stddev_ns;
        p50_ns = r.p50_ns;
        p90_ns = r.p90_ns;
        p99_ns = r.p99_ns;
        p999_ns = r.p999_ns;
        p9999_ns = r.p9999_ns;
    }
};

LatencyStats summarize(std::uint32_t size, const LatencyHistogram& round_trip,
                       const LatencyHistogram& period, double seconds, bool aborted, const std::string& reason,
                       std::size_t histogram_rows);
Json to_json(const LatencyStats& s);
LatencyStats latency_stats_from_json(const Json& j);  // throws OperationError on a malformed peer report

struct SizeResult {
    LatencyStats local;
    std::optional<LatencyStats> peer;
    // --op fadd|cas, the client: the atomics its pairs completed (warm-up
    // included), which the server's counter must equal (each landed once).
    std::optional<std::uint64_t> atomic_expected;
    bool atomic_ok() const
    {
        return !atomic_expected || (peer && peer->atomic_counter == atomic_expected);
    }
};

struct PingPongReport : LinkHeader {
    bool one_way = true;  // latency is half the round trip (send, write); read reports the round trip
    std::optional<SrqShared> srq;  // --srq: this side's one SRQ
    std::string clock_why;
    double clock_ticks_per_ns = 0;
    double clock_calibration_ms = 0, clock_calibration_error_ppm = 0;
    std::vector<SizeResult> sizes;
    bool aborted = false;
    std::string abort_reason;
    // The run stalled while the peer answered, and both sides' RoCE packets
    // show where they stopped (abort_reason says it): a fault of the path,
    // not a lost peer (exit 1, not 3).
    bool stalled_on_path = false;
    // A work completion of this side's own failed (RETRY_EXC_ERR, ...): the
    // test could not run (exit 1), whatever else abort_reason says.
    bool completion_failed = false;
    // The peer's run failed or stalled first and said why (its "stalled"
    // message): the test could not run (exit 1).
    bool peer_gave_up = false;

    // The server of a read or atomic test only keeps its QP up: the client's
    // reads and atomics are answered by the server's NIC, so the server has
    // no figures to report.
    bool server_measures() const { return one_way; }
    // --op fadd|cas: a size's remote counter is not what the client's
    // completed atomics leave (exit 1).
    bool atomic_mismatch() const
    {
        return std::any_of(sizes.begin(), sizes.end(), [](const SizeResult& s) { return !s.atomic_ok(); });
    }
};

}  // namespace qps::report
