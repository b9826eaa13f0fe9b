// One rank's part in one pair of a mesh round: a fresh RC QP, the
// endpoints swapped over the pair's link, an RC send ping-pong (rank a
// drives), then an RDMA write bandwidth run in each direction (a -> b,
// then b -> a), the receiver checking the pattern that arrived. The hot
// loops are ping-pong's and bw's own (src/perf). Every wait on the peer
// is bounded by the pair's deadline; a failure ends the pair with a cause
// that names the rank and the step, never the run.
//
// The link is whatever carries a few small messages between the two ranks
// (MPI in qpscope-mesh); this file knows nothing of MPI.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "src/mesh/report.hpp"
#include "src/perf/clock.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::ops {

using Deadline = std::chrono::steady_clock::time_point;

class PairLink {
public:
    virtual ~PairLink() = default;
    // Sends one message to the partner (never blocks for long).
    virtual void send(const std::string& message) = 0;
    // The partner's next message, or nullopt when `deadline` passed first
    // or an interrupt (SIGINT/SIGTERM) arrived.
    virtual std::optional<std::string> receive(Deadline deadline) = 0;
};

struct PairContext {
    mesh::Pair pair;
    std::uint32_t me = 0;
    std::uint32_t round = 0;
    const mesh::RankInfo* mine = nullptr;
    const mesh::RankInfo* partner = nullptr;
    mesh::TestSpec tests;
    Deadline deadline;  // the pair's end, at the latest
    verbs::SharedDevice device;  // this rank's device, opened once (null: opened here)
};

// "rank 3 (node07)"
std::string rank_name(const mesh::RankInfo& r);

// This rank's view of the pair; a failure is in status and cause.
mesh::PairResult run_pair(const PairContext& ctx, PairLink& link, const perf::Clock& clock);

}  // namespace qps::ops
