// The MPI job as one rank of qpscope-mesh sees it: its rank, the job's
// size and its rank among its node's; the collectives of the start (rank
// 0's plan broadcast, every rank's record all-gathered); and the two ways
// a rank ends: MPI_Finalize, bounded, or leaving without it when a rank
// of the job is gone.
#pragma once

#include <string>
#include <vector>

#include "src/exit_code.hpp"
#include "src/mesh/report.hpp"

namespace qps::mesh::mpi {

// A rank lost is a peer lost: qpscope's timeout code (src/exit_code.hpp).
inline constexpr int exit_lost = exit_timeout;

int world_rank();
int world_size();
// The rank's index among the ranks of its node (for --per-device).
int node_local_rank();

// Rank 0's `text` on every rank.
std::string broadcast(const std::string& text);
// Every rank's record, in rank order.
std::vector<RankInfo> gather_ranks(const RankInfo& mine, int n);

// Ends a rank that cannot finalize (a rank of the job is gone): what was
// written is flushed, MPI is left as it is.
[[noreturn]] void leave(int code);
// MPI_Finalize, bounded: a rank of the job that left meanwhile (rank 0
// killed after its last word) can make it wait for ever; past a few
// seconds the rank leaves with the same code. Returns `code`.
int finalize(int code);

}  // namespace qps::mesh::mpi
