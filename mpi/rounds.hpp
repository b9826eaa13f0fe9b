// qpscope-mesh's rounds, on every rank: its pair's tests (or it sits
// out), then its record to rank 0 and rank 0's word to go on; rank 0
// collects the records, ends the run early when a rank is lost, and ends
// it after the last round.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "mpi/collector.hpp"
#include "src/mesh/options.hpp"
#include "src/mesh/plan.hpp"
#include "src/mesh/report.hpp"
#include "src/perf/clock.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::mpi {

using Clock = std::chrono::steady_clock;

// What every rank knows once the run has started.
struct Run {
    int rank = 0, size = 0;
    mesh::MeshOptions options;
    std::vector<mesh::RankInfo> ranks;
    mesh::Schedule sched;
    Clock::duration timeout{};
    perf::Clock clock = perf::Clock::system();
    verbs::SharedDevice device;  // this rank's, opened once by local_setup
};

// Every round of the schedule; returns the exit code (MPI finalized, or
// the rank leaves without it when the run ends early). `collector`: rank 0's.
int run_rounds(const Run& run, std::optional<Collector>& collector, bool show_progress);

}  // namespace qps::mpi
