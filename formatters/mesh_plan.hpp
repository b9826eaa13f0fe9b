// `qpscope mesh`: the plan of a run of N ranks and the lines that start it.
#pragma once

#include <string>
#include <vector>

#include "formatters/printer.hpp"
#include "src/mesh/options.hpp"

namespace qps::formatters {

struct MeshPlan {
    mesh::MeshOptions options;
    std::uint32_t ranks = 0;
    double assume_gbps = 0, assume_lat_us = 0, pair_s = 0;
    mesh::CostEstimate estimate;
    std::vector<std::string> args;  // qpscope-mesh's options as typed
};

void render_mesh_plan(const MeshPlan& p, Printer& pr);

}  // namespace qps::formatters
