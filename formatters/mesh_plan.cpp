#include "formatters/mesh_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace qps::formatters {

void render_mesh_plan(const MeshPlan& p, Printer& pr)
{
    const std::string args = p.args.empty() ? "" : " " + fmt::format("{}", fmt::join(p.args, " "));
    pr.begin_object("plan", "plan");
    pr.field("ranks", "ranks", std::uint64_t{p.ranks});
    pr.field("pairs_plan", "pairs", mesh::pairs_name(p.options.pairs));
    pr.field("pairs", "pairs tested", std::uint64_t{p.estimate.pairs});
    pr.field("rounds", "rounds", std::uint64_t{p.estimate.rounds});
    pr.field("pair_seconds", "one pair's tests (s)", p.pair_s);
    pr.field("coordination_seconds", "coordination a round (s)", mesh::CostModel{}.coordination_seconds);
    pr.field("estimate_seconds", "estimated run (s)", p.estimate.seconds);
    pr.field("assume_gbps", "assumed link (Gb/s)", p.assume_gbps);
    pr.field("assume_lat_us", "assumed one-way latency (us)", p.assume_lat_us);
    pr.end_object();
    pr.begin_object("launch", "launch");
    pr.field("mpirun", "Open MPI", fmt::format("mpirun -np {} --map-by node qpscope-mesh{}", p.ranks, args));
    pr.field("srun", "Slurm", fmt::format("srun -N {} --ntasks-per-node=1 qpscope-mesh{}", p.ranks, args));
    pr.field("per_device", "one rank per device",
             fmt::format("mpirun -np {} --map-by ppr:DEVICES:node qpscope-mesh{}{}", p.ranks,
                         p.options.per_device ? "" : " --per-device", args));
    pr.end_object();
    pr.note("MPI only starts the ranks and carries a few small messages (over TCP unless OMPI_MCA_pml/btl say "
            "otherwise); the tests run on qpscope's own RC QPs. Exit 0: every pair passed.");
}

}  // namespace qps::formatters
