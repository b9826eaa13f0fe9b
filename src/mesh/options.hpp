// What a mesh run is told on its command line. The same options serve
// qpscope-mesh (the MPI program) and `qpscope mesh` (how to launch it, and
// what a run of N ranks will cost): commands/mesh_flags.cpp defines them once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/mesh/analysis.hpp"
#include "src/mesh/plan.hpp"
#include "src/mesh/report.hpp"

namespace qps::mesh {

struct MeshOptions {
    // Local to each rank (MPMD launches may give ranks different ones).
    std::string device;  // "" = the first, or with per_device the node-local rank's
    std::uint8_t port = 1;
    std::optional<std::uint32_t> gid_index;
    bool per_device = false;
    // Rank 0's rule for the whole run.
    TestSpec tests;
    PairSpec pairs;
    double threshold = 0.8;
    std::vector<Expectation> expect;
    std::string expect_text;
    std::string svg_path, output_path;
    std::optional<Metric> svg_metric;  // default: bandwidth when measured
    bool json = false;
    bool quiet = false;
};

// The words of --svg-metric.
inline Metric svg_metric_of(const MeshOptions& o)
{
    if (o.svg_metric)
        return *o.svg_metric;
    return o.tests.bw ? Metric::bw : Metric::lat;
}

}  // namespace qps::mesh
