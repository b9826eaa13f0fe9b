// The options of a mesh run, defined once for qpscope-mesh (mpi/main.cpp)
// and for `qpscope mesh`, so the two cannot drift and the completions and
// the man page see the same definition.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "commands/link_flags.hpp"
#include "src/mesh/options.hpp"

namespace qps::commands {

struct MeshFlags {
    std::string device;
    unsigned port = 1;
    std::optional<std::uint32_t> gid_index;
    bool per_device = false;
    bool lat = false, bw = false;
    std::uint32_t lat_size = 2, bw_size = 65536;
    std::uint64_t lat_iterations = 1000, bw_iterations = 2000, warmup = 100;
    std::optional<double> duration;
    std::string pairs = "all";
    std::uint64_t seed = 1;
    double timeout_s = 30;
    double threshold = 0.8;
    std::string expect;
    std::string svg, output, svg_metric;
    bool cm = false;
    KnobFlags knobs;
};

void add_mesh_options(CLI::App* cmd, MeshFlags& f);
// UsageError naming a bad --pairs, --expect or QP option.
mesh::MeshOptions to_mesh_options(const MeshFlags& f);

}  // namespace qps::commands
