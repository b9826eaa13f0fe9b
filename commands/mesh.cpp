// `qpscope mesh`: how to launch qpscope-mesh, and what a run of N ranks
// costs (pairs, rounds, time) under the cost model. The run itself is the
// MPI program qpscope-mesh, so this binary keeps no MPI dependency.
#include <memory>

#include "commands/app.hpp"
#include "commands/mesh_flags.hpp"
#include "commands/emit.hpp"
#include "formatters/mesh_plan.hpp"

namespace qps::commands {

namespace {

// A word as a POSIX shell reads it back: quoted when it holds more than
// letters, digits and _./:,=@%+- (a > in --expect would redirect).
std::string shell_word(const std::string& w)
{
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_./:,=@%+-") == std::string::npos;
    if (plain)
        return w;
    std::string q = "'";
    for (char c : w)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct PlanFlags {
    std::uint32_t ranks = 8;
    double gbps = 100, lat_us = 2;
};

}  // namespace

void register_mesh(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<MeshFlags>();
    auto plan = std::make_shared<PlanFlags>();
    CLI::App* cmd = app.add_subcommand(
        "mesh", "How to run qpscope-mesh (every pair of a cluster's nodes: latency, bandwidth, outliers, heat map, "
                "under mpirun or srun) and what a run of --ranks N costs: pairs, rounds, estimated time. Takes "
                "qpscope-mesh's own options");
    add_mesh_options(cmd, *f);
    cmd->add_option("--ranks", plan->ranks, "Ranks (nodes, or devices with --per-device) to plan for (default 8)")
        ->check(CLI::Range(2u, 1000000u));
    cmd->add_option("--assume-gbps", plan->gbps, "Link rate the estimate assumes (default 100)")
        ->check(CLI::Range(0.001, 100000.0));
    cmd->add_option("--assume-lat", plan->lat_us, "One-way latency in microseconds the estimate assumes (default 2)")
        ->check(CLI::Range(0.01, 1e6));
    cmd->callback([f, plan, cmd, &global] {
        const mesh::MeshOptions o = to_mesh_options(*f);
        formatters::MeshPlan p;
        p.options = o;
        p.ranks = plan->ranks;
        p.assume_gbps = plan->gbps;
        p.assume_lat_us = plan->lat_us;
        p.pair_s = mesh::pair_seconds(o.tests, plan->gbps, plan->lat_us);
        mesh::CostModel model{p.pair_s};
        p.estimate = mesh::estimate(o.pairs, plan->ranks, model);
        // The options as typed, for the launch lines.
        for (const CLI::Option* opt : cmd->get_options()) {
            const std::string name = opt->get_name();
            if (opt->count() == 0 || name == "--ranks" || name == "--assume-gbps" || name == "--assume-lat" ||
                name == "--help")
                continue;
            const std::string flag = opt->get_lnames().empty() ? name : "--" + opt->get_lnames().front();
            if (opt->get_expected_min() == 0)  // a flag
                p.args.push_back(flag);
            else
                for (const auto& v : opt->results())
                    p.args.push_back(shell_word(flag + "=" + v));
        }
        emit(global, "mesh", [&](formatters::Printer& pr) { formatters::render_mesh_plan(p, pr); });
    });
}

}  // namespace qps::commands
