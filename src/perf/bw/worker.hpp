// bw --threads N: one side's run of one size on N worker threads. Each
// thread is pinned to its own CPU and owns its QPs, CQs and buffers; its
// hot loop (src/perf/bw/loop.hpp) shares nothing written per message with
// the others and takes no lock. The threads start together; with -D each
// span starts once every thread is past its warm-up. The calling thread
// is the coordinator: it watches the out-of-band socket and turns the
// peer's done signal into the crew's end signal (an eventfd), and the last
// thread done sending makes the client's announcement. A thread that fails
// ends every thread of the side (halt), so none waits for a peer that the
// failure silenced. One thread: run_bandwidth on the calling thread, as
// before threads existed.
#pragma once

#include <vector>

#include "src/perf/bw/loop.hpp"
#include "src/report/bandwidth.hpp"

namespace qps::perf {

struct WorkerPlan {
    std::vector<verbs::TestResources*> lanes;  // this thread's QPs
    int cpu = -1;                              // -1: not pinned
};

struct CrewResult {
    // The side's figures: tx and rx the threads' total (src/perf/bw/aggregate.hpp),
    // CPU their sum over the longest thread's span; aborted when any thread was.
    BwResult total;
    std::vector<report::ThreadStats> threads;  // empty for one thread
};

// run.oob_fd is the out-of-band socket, run.on_sent the client's
// announcement, run.progress gets the threads' summed rate. Rethrows the
// first exception a thread raised, after every thread has ended.
CrewResult run_crew(const std::vector<WorkerPlan>& plans, const BwRun& run, const Clock& clock);

}  // namespace qps::perf
