// One side's run of one size on its worker threads (bw --threads N;
// without it the loop runs on the calling thread and looks at the peer
// itself, as ping-pong's one pair does). Each thread is pinned to its own
// CPU and owns its QPs, CQs and buffers; its hot loop (src/perf/bw/loop.hpp) shares nothing
// written per message with the others and takes no lock. The threads start
// together; with -D each span starts once every thread is past its
// warm-up. The calling thread is the coordinator (src/perf/crew.hpp): it
// keeps the heartbeats going both ways and turns the peer's done signal,
// or its silence, into the crew's end signal (an eventfd); the last thread
// done sending makes the client's announcement. A thread that fails ends
// every thread of the side (halt), so none waits for a peer that the
// failure silenced.
#pragma once

#include <vector>

#include "src/net/heartbeat.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::perf {

struct WorkerPlan {
    std::vector<verbs::LinkResources*> lanes;  // this thread's QPs
    int cpu = -1;                              // -1: not pinned
};

struct CrewResult {
    // The side's figures: tx and rx the threads' total (src/perf/bw/aggregate.hpp),
    // CPU their sum over the longest thread's span; aborted when any thread was.
    BwResult total;
    std::vector<report::ThreadStats> threads;  // empty for one thread
};

// peer watches the out-of-band socket (run.oob_fd is not used), run.on_sent
// is the client's announcement, run.progress gets the threads' summed rate.
// A peer that stopped answering ends the run: total.aborted, with the
// reason. Rethrows the first exception a thread raised, after every thread
// has ended.
CrewResult run_crew(const std::vector<WorkerPlan>& plans, const BwRun& run, const Clock& clock, net::PeerWatch& peer);

}  // namespace qps::perf
