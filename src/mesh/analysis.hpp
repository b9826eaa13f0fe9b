// Reading a mesh report: the --expect limits, the outliers (below a
// fraction of the median, or beyond a limit), the worst pairs and the
// nodes whose pairs are consistently slow, and the run's verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/mesh/report.hpp"

namespace qps::mesh {

enum class Metric { bw, lat };

// One --expect term: bw>=90Gb/s (bandwidth of every direction) or
// lat<=3us (p50 one-way latency of every pair).
struct Expectation {
    Metric metric = Metric::bw;
    double limit = 0;  // bw: Gb/s; lat: microseconds
    std::string text;  // as typed
};

// "bw>=90Gb/s,lat<=3us" (units: bw Gb/s, Mb/s, GB/s, MB/s; lat ns, us,
// ms); UsageError naming the term and the valid forms.
std::vector<Expectation> parse_expect(std::string_view text);

// One measured value of a pair: a bandwidth direction or its latency.
struct Sample {
    std::size_t result = 0;   // index into MeshReport::results
    Metric metric = Metric::bw;
    std::uint32_t from = 0, to = 0;  // bw: sender -> receiver; lat: a, b
    double value = 0;                // Gb/s or us
};

struct Outlier {
    Sample sample;
    double median = 0;
    std::string why;  // "below 0.80 x median 12.3 Gb/s", "misses bw>=90Gb/s"
};

struct SlowNode {
    std::uint32_t rank = 0;
    std::uint32_t bad = 0, tested = 0;  // pairs failed or outlying / pairs it was in
};

struct Analysis {
    std::optional<double> median_gbps, median_lat_us;
    std::vector<Outlier> outliers;        // worst first
    std::vector<Sample> worst_bw, worst_lat;  // up to `worst` each, worst first
    std::vector<SlowNode> slow_nodes;     // most affected first
    std::uint32_t failed = 0, not_run = 0, missed_expectations = 0;
    bool healthy() const { return failed == 0 && not_run == 0 && missed_expectations == 0; }
};

// Every measured sample of the report (bandwidth: each direction; latency: a's p50).
std::vector<Sample> samples(const MeshReport& r);

// `threshold`: a bandwidth below threshold x median, or a latency above
// median / threshold, is an outlier. A node is consistently slow when at
// least half of its pairs (and at least two) failed or are outliers.
Analysis analyse(const MeshReport& r, double threshold, const std::vector<Expectation>& expect, std::size_t worst = 10);

}  // namespace qps::mesh
