// The latency ping-pong loops: one side's part of a send, RDMA write or RDMA
// read ping-pong on connected LinkResources. Busy-polling, sparse signalling,
// work requests built once, no allocation, logging or virtual calls per
// message: a sample is one store into a preallocated log (the client's two:
// the round trip and the post tick), binned into histograms after the loop. A watchdog (checked every few thousand
// empty polls; without a coordinator thread also once a millisecond
// between messages, a comparison of the last tick per message) ends a run
// whose peer went silent, keeping what was measured.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "src/net/heartbeat.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/link_common.hpp"
#include "src/report/histogram.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

struct LatencyRun {
    Op op = Op::send;
    std::uint32_t size = 2;
    std::uint64_t iterations = 1000;            // measured iterations (iteration mode)
    std::optional<std::chrono::nanoseconds> duration;  // duration mode: measure for this long
    std::uint64_t warmup = 100;                 // iterations before measuring
    bool use_inline = false;
    std::chrono::milliseconds silence_limit{5000};  // watchdog: no progress for this long ends the run
    int oob_fd = -1;  // readable once the peer finished, went away or went silent (the crew's end signal, or a pipe)
    // Set: the loop runs without a coordinator thread and looks at the peer
    // itself (heartbeats, its end, its silence), about once a millisecond.
    net::PeerWatch* peer = nullptr;
};

struct LatencyResult {
    // Both figures are one-way for send/write (halved, as perftest does),
    // whole for read.
    report::LatencyHistogram histogram;   // round trip: post of message i to its reply seen (the client's)
    report::LatencyHistogram period;      // loop period: post of message i to post of i + 1 (perftest's sample);
                                  // the server's sample is answer to answer, so both are that
    std::uint64_t measured = 0;   // samples in the histogram
    std::uint64_t exchanged = 0;  // messages this side completed, warm-up included
    double measured_seconds = 0;  // wall time of the measured span
    std::uint64_t start_tick = 0, end_tick = 0;  // the span on the clock (--threads: the pairs' common span)
    bool aborted = false;         // the watchdog fired, the peer left or a completion failed
    bool completion_failed = false;  // a work completion's error status ended it
    bool stalled = false;            // nothing completed within the limit (this side's watchdog)
    std::string abort_reason;
    std::string peer_lost;  // with LatencyRun::peer: why the peer was lost (its silence), or ""
};

// Runs one size. Both sides must call it with the same run (the exchange
// makes sure). The client drives; the server answers. In duration mode the
// client stops after `duration` and the server stops when the peer's
// out-of-band socket becomes readable.
LatencyResult run_latency(verbs::LinkResources& res, Role role, const LatencyRun& run, const Clock& clock);

// Receives posted before the peer may send (send op): call before the
// barrier that precedes run_latency.
void prepost_receives(verbs::LinkResources& res, std::uint32_t size);

}  // namespace qps::perf
