// What a mesh run found: every rank's host and port, the schedule, and
// every pair's figures as both of its ranks measured them; the outliers
// (src/mesh/analysis.hpp) are computed from it. Rank 0 assembles it from
// the records the ranks send (JSON, record_to_json/record_from_json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/json.hpp"
#include "src/mesh/plan.hpp"
#include "src/verbs/qp_knobs.hpp"

namespace qps::mesh {

struct RankInfo {
    std::uint32_t rank = 0;
    std::string host;
    std::string device;  // empty when the set-up failed before a device was chosen
    std::uint32_t port = 0;
    std::string gid;  // text form
    std::uint32_t gid_index = 0;
    double rate_gbps = 0;    // the port's active width x speed
    std::string setup_error;  // empty: the rank is ready
    std::string cm_address;   // with --cm: where rdma_cm reaches it (the IPv4 of its RoCE v2 GID); "" = none
};

// One side's latency figures (RC send ping-pong, one-way = half the round trip).
struct LatencyFigures {
    std::uint64_t samples = 0;
    double p50_us = 0, p99_us = 0, max_us = 0, mean_us = 0;
};

// One direction's bandwidth, as its sender measured it.
struct BandwidthFigures {
    std::uint64_t messages = 0, bytes = 0;
    double seconds = 0;
    double gbps = 0, peak_gbps = 0, min_gbps = 0;
};

enum class PairStatus { ok, failed, not_run };

struct PairResult {
    Pair pair;
    std::uint32_t round = 0;
    PairStatus status = PairStatus::not_run;
    std::string cause;  // failed / not_run: why, naming the rank and the step
    std::optional<LatencyFigures> lat_a, lat_b;         // each side's view of the same ping-pong
    std::optional<BandwidthFigures> bw_ab, bw_ba;       // a -> b, b -> a, as each sender measured
    std::string verified_ab, verified_ba;  // what each receiver found in its buffer: "ok" or where it differs
    double seconds = 0;  // the pair's tests, as a measured them (from connected to done; 0 if never connected)
};

struct RoundTiming {
    double wall_s = 0;  // at rank 0, the previous round's last record in (or the start) to this round's
    double test_s = 0;  // the longest pair's tests (PairResult::seconds: no QP set-up, no exchange)
    double coordination_s() const { return wall_s > test_s ? wall_s - test_s : 0; }
};

struct TestSpec {
    bool lat = true, bw = true;
    std::uint32_t lat_size = 2, bw_size = 65536;
    std::uint64_t lat_iterations = 1000, bw_iterations = 2000;
    std::optional<double> duration_s;  // each test this long instead of iterations
    std::uint64_t warmup = 100;
    double timeout_s = 30;  // per pair
    // How each pair's QP connects (by hand, or rdma_cm: rank a listens on
    // its address, rank b connects) and the knobs both QPs take.
    bool cm = false;
    verbs::QpKnobs knobs;
};
Json to_json(const TestSpec& t);
// The cost model's pair time: the tests at a link of `gbps` with a one-way
// latency of `one_way_us`, plus `setup_s` for the QP and the exchanges.
double pair_seconds(const TestSpec& t, double gbps, double one_way_us, double setup_s = 0.01);
TestSpec test_spec_from_json(const Json& j);  // OperationError on a malformed document

struct MeshReport {
    TestSpec tests;
    PairSpec pairs;
    std::vector<RankInfo> ranks;
    Schedule schedule;
    std::vector<PairResult> results;  // in schedule order
    std::vector<RoundTiming> timings; // one per round run
    std::uint32_t rounds_done = 0;
    bool complete = false;    // every round ran
    std::string stopped;      // why the run ended early (a rank lost, interrupted)
};

// A pair's status word ("ok", "failed", "not run").
std::string_view status_name(PairStatus s);

// The records that travel to rank 0.
Json to_json(const RankInfo& r);
RankInfo rank_info_from_json(const Json& j);
Json to_json(const PairResult& p);
PairResult pair_result_from_json(const Json& j);

// Merges b's view of a pair into a's record (rank 0 keeps a's as the
// base: status and cause combine, the figures each side measured join).
void merge_sides(PairResult& base, const PairResult& other);

}  // namespace qps::mesh
