// The bandwidth loop: one side's part of a send, RDMA write or RDMA read
// bandwidth test over one or more connected LinkResources (one per QP).
//
// A sending side keeps every send queue full, posts chains of --post-list
// WRs, signals one WR in --cq-mod and polls completions in batches; a
// receiving side (send op) polls receives in batches and reposts them in
// chains. Nothing is allocated, logged or called virtually per message.
//
// What is measured (each side, each direction it takes part in):
//   - the span starts when the warm-up messages (per QP) have completed
//     and ends when the measured ones have (-n), or after the duration
//     (-D); the sender keeps the queues full past the end (cool-down: at
//     most tx-depth more messages per QP), so the queue never drains
//     inside the span; warm-up and cool-down are not in the figures;
//     a receiver's span runs from its warm-up to its last receive;
//   - bandwidth = bytes completed in the span / span; peak and minimum
//     over fixed windows (WindowMeter); message rate; CPU use of the span.
//
// The end: a side whose sending is done (or that has none) waits for the
// peer's done signal on the out-of-band socket; the client announces its
// own first (see net::Exchange's split ready), so a bidirectional run
// cannot deadlock. A silent peer (no completion within the silence limit
// while sending), a failed completion, a lost socket or an interrupt end
// the run early with a partial result.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/perf/clock.hpp"
#include "src/perf/cpu.hpp"
#include "src/perf/link_common.hpp"
#include "src/perf/rate_windows.hpp"
#include "src/report/bandwidth.hpp"
#include "src/net/heartbeat.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

struct BwRun {
    Op op = Op::write;
    std::uint32_t size = 65536;
    std::uint64_t iterations = 5000;                   // measured messages per QP (-n)
    std::optional<std::chrono::nanoseconds> duration;  // -D: measure this long instead
    std::uint64_t warmup = 100;                        // messages per QP before the span
    std::uint32_t tx_depth = 128, rx_depth = 512, post_list = 1, cq_mod = 64;
    bool use_inline = false;
    bool sends = true;      // this side posts (client; both with --bidir)
    bool receives = false;  // this side receives sends (send op: server; both with --bidir)
    bool client = true;     // the client ends on the first readable socket, the server when its own part is done
    std::chrono::nanoseconds window{10'000'000};
    std::chrono::milliseconds silence_limit{10000};
    // Readable once the peer is done, gone or silent: the crew's end signal
    // (src/perf/crew.hpp; a sibling thread may raise it too), or a pipe
    // (doctor's loopback, qpscope-mesh).
    int oob_fd = -1;
    // bw without --threads: the loop runs on the calling thread and looks
    // at the peer itself (its heartbeats both ways, its end or silence) in
    // place of oob_fd. No second thread: glibc then leaves the cancellation
    // bracket out of rxe's doorbell write() (src/perf/bw/worker.cpp).
    net::PeerWatch* peer = nullptr;
    // Called once when this side's sending is done (the client's announcement).
    std::function<void()> on_sent;
    // Called about once a second while measuring (seconds in the span, tx bytes/s so far).
    std::function<void(double, double)> progress;
    // bw --threads: what the threads of one side share (src/perf/bw/worker.hpp).
    // With one thread: size 1 and null pointers.
    struct Crew {
        std::uint32_t size = 1;
        std::atomic<std::uint32_t>* at_start = nullptr;  // threads at the start line: all start together
        std::atomic<std::uint32_t>* warmed = nullptr;    // -D: each thread's span starts when all are warm
        std::atomic<std::uint64_t>* opened = nullptr;    // -D: the tick the first thread saw all warm (0: not yet);
                                                         // every span ends at opened + duration
        const std::atomic<bool>* halt = nullptr;         // a sibling ended the run
        std::uint64_t grid_origin = 0;                   // the shared window grid (BwResult's traces)
    } crew;
};

// A direction's span on the crew's clock, with its windows on the shared grid.
struct SpanTrace {
    std::uint64_t start_tick = 0, end_tick = 0;
    std::optional<WindowGrid> grid;
};

struct BwResult {
    std::optional<report::DirectionStats> tx, rx;
    CpuUse cpu;
    bool aborted = false;
    std::string abort_reason;
    bool peer_ended_early = false;  // the socket became readable before this side was done
    bool peer_lost = false;         // the peer went silent (no heartbeat): nobody to swap counts with
    bool halted = false;            // ended because a sibling thread did (bw --threads)
    SpanTrace tx_trace, rx_trace;   // bw --threads only
    // Send WRs completed on every lane, warm-up and cool-down included (the
    // atomics' count, which the target's counters must show).
    std::uint64_t sends_completed = 0;
    // QPs that completed at least one receive (--srq: how many the one SRQ served).
    std::uint32_t qps_received = 0;
};

// Receive WRs for the send op: called once after connect, before the first
// barrier, on a side that receives; every run starts with and leaves each
// QP with rx_depth receives posted (--srq: the one SRQ, called for the
// first QP only).
void post_initial_receives(verbs::LinkResources& res, std::uint32_t rx_depth);

BwResult run_bandwidth(const std::vector<verbs::LinkResources*>& lanes, const BwRun& run, const Clock& clock);

// The pattern a size's data carries (sender's buffer, read target), and the
// check of what arrived: "ok" or where it first differs.
void fill_pattern(std::uint8_t* buf, std::uint32_t size);
std::optional<std::string> check_pattern(const std::uint8_t* buf, std::uint32_t size);

}  // namespace qps::perf
