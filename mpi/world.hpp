// The MPI job as one rank of qpscope-mesh sees it: its rank, the job's
// size and its rank among its node's; the collectives of the start (rank
// 0's plan broadcast, every rank's record all-gathered); and the two ways
// a rank ends: MPI_Finalize, bounded, or leaving without it when a rank
// of the job is gone.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "src/exit_code.hpp"
#include "src/mesh/report.hpp"

namespace qps::mpi {

// A rank lost is a peer lost: qpscope's timeout code (src/exit_code.hpp).
inline constexpr int exit_lost = exit_timeout;

int world_rank();
int world_size();
// The rank's index among the ranks of its node (for --per-device).
int node_local_rank();

// The start's collectives are MPI's non-blocking ones, each waited for at
// most `limit` (the rank's --timeout) from when this rank enters it: a
// rank that died, hung or was stopped before its set-up ended would
// otherwise hold every other rank in MPI_Bcast for ever. Past the limit
// the rank says so on stderr and leaves with exit 3 (on SIGINT/SIGTERM:
// exit 4), without MPI_Finalize, which would wait for the lost rank too:
//   "qpscope-mesh: rank 0: start-up: not every rank took part in the
//    broadcast of rank 0's plan within 30 s: a rank died, hung or was
//    stopped before its set-up ended"
using StartLimit = std::chrono::milliseconds;
// Rank 0's `value` on every rank.
int broadcast_int(int value, StartLimit limit, const char* what);
// Rank 0's `text` on every rank.
std::string broadcast(const std::string& text, StartLimit limit);
// Every rank's record, in rank order.
std::vector<mesh::RankInfo> gather_ranks(const mesh::RankInfo& mine, int n, StartLimit limit);
// Every rank got here.
void barrier(StartLimit limit, const char* what);

// Ends a rank that cannot finalize (a rank of the job is gone): what was
// written is flushed, MPI is left as it is.
[[noreturn]] void leave(int code);
// MPI_Finalize, bounded: a rank of the job that left meanwhile (rank 0
// killed after its last word) can make it wait for ever; past a few
// seconds the rank leaves with the same code. Returns `code`.
int finalize(int code);

}  // namespace qps::mpi
