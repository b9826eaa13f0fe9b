// qpscope-mesh: the whole run on one rank. MPI bootstraps (rank table,
// schedule agreement, round control, results to rank 0); the tests are
// src/ops/mesh_pair.cpp on qpscope's own QPs.
//
// A round: every rank runs its pair (or sits out) and sends its record to
// rank 0; rank 0 waits for every record until the round's start plus the
// per-pair timeout (plus a little), then says "go" for the next round. A
// rank that has not reported by then is lost (died or hung): rank 0 says
// "stop" to the others, writes the partial report and everyone ends. The
// JSON report is rewritten after rounds (--output; at most every 5 s) and
// when the run stops, so even a job the
// launcher kills leaves what was measured.
#pragma once

namespace qps::mpi {

int run(int argc, char** argv);

}  // namespace qps::mpi
