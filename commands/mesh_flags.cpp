#include "commands/mesh_flags.hpp"

#include <fmt/format.h>

#include "commands/option_values.hpp"
#include "src/error.hpp"

namespace qps::commands {

void add_mesh_options(CLI::App* cmd, MeshFlags& f)
{
    add_device_option(cmd, f.device, DeviceUse::mesh_rank);
    cmd->add_option("-i,--ib-port", f.port, "Device port")->check(CLI::Range(1u, 255u))->type_name(value_type::port);
    cmd->add_option("-x,--gid-index", f.gid_index,
                    "GID index (default: the best: RoCE v2 with an IPv4 address, then RoCE v2, RoCE v1, IB)");
    cmd->add_flag("--per-device", f.per_device,
                  "One rank per device: the node-local rank (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID) picks "
                  "the device of that index");
    cmd->add_flag("--lat", f.lat, "Test latency (RC send ping-pong); with neither --lat nor --bw, both");
    cmd->add_flag("--bw", f.bw, "Test bandwidth (RDMA write, each direction in turn)");
    cmd->add_option("--lat-size", f.lat_size, "Latency message bytes (default 2)")->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--bw-size", f.bw_size, "Bandwidth message bytes (default 65536)")
        ->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--lat-iters", f.lat_iterations, "Measured ping-pong iterations per pair (default 1000)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
    auto* n = cmd->add_option("--bw-iters", f.bw_iterations,
                              "Measured messages per direction and pair (default 2000)")
                  ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    auto* dur = cmd->add_option("-D,--duration", f.duration,
                                "Measure each bandwidth direction this many seconds instead of --bw-iters")
                    ->check(CLI::Range(0.001, 3600.0));
    n->excludes(dur);
    cmd->add_option("-w,--warmup", f.warmup, "Iterations and messages before measuring (default 100)")
        ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 32));
    cmd->add_flag("--cm", f.cm,
                  "Connect each pair's QP through rdma_cm (RC): rank a listens on the IPv4 address of its RoCE v2 "
                  "GID, rank b connects from its own, the way NVMe-oF and MPI's rdmacm do");
    add_knob_options(cmd, f.knobs);
    cmd->add_option("--pairs", f.pairs,
                    "Which pairs: all (N(N-1)/2, N-1 rounds), ring (each rank and the next, 2-3 rounds) or "
                    "random:K (K random partners a rank, K rounds)")
        ->check(suggest_words({"all", "ring", "random:"}));
    cmd->add_option("--seed", f.seed, "Seed of --pairs random:K (default 1; every rank draws the same pairs)");
    cmd->add_option("-t,--timeout", f.timeout_s,
                    "Seconds a pair may take, set-up and tests (default 30): a pair still running then fails, and "
                    "a rank that has not reported by then ends the run with a partial report")
        ->check(CLI::Range(1.0, 86400.0));
    cmd->add_option("--threshold", f.threshold,
                    "An outlier: bandwidth below this fraction of the median, or latency above the median "
                    "divided by it (default 0.8)")
        ->check(CLI::Range(0.01, 1.0));
    cmd->add_option("--expect", f.expect, "Limits every pair must meet, e.g. bw>=90Gb/s,lat<=3us; a miss exits 1");
    cmd->add_option("--svg", f.svg, "Write a rank x rank heat map to this SVG file (rank 0)");
    cmd->add_option("--svg-metric", f.svg_metric, "Colour the heat map by bw or lat (default bw when measured)")
        ->transform(one_of({"bw", "lat"}));
    cmd->add_option("-o,--output", f.output,
                    "Also write the JSON report to this file (rank 0), rewritten after a round (at most every 5 s) "
                    "and when the run stops, so a run "
                    "that is killed leaves what it had");
}

mesh::MeshOptions to_mesh_options(const MeshFlags& f)
{
    mesh::MeshOptions o;
    o.device = f.device;
    o.port = static_cast<std::uint8_t>(f.port);
    o.gid_index = f.gid_index;
    o.per_device = f.per_device;
    o.tests.lat = f.lat || !f.bw;
    o.tests.bw = f.bw || !f.lat;
    o.tests.lat_size = f.lat_size;
    o.tests.bw_size = f.bw_size;
    o.tests.lat_iterations = f.lat_iterations;
    o.tests.bw_iterations = f.bw_iterations;
    o.tests.duration_s = f.duration;
    o.tests.warmup = f.warmup;
    o.tests.timeout_s = f.timeout_s;
    o.tests.cm = f.cm;
    if (f.cm) {
        BesideCm b(f.knobs);
        b.gid_index = f.gid_index;
        b.gid_hint = "each rank's address; leave -x out";
        check_beside_cm(b);
    }
    o.tests.knobs = to_knobs(f.knobs, IBV_QPT_RC, "rc");
    o.pairs = mesh::parse_pairs(f.pairs);
    o.pairs.seed = f.seed;
    o.threshold = f.threshold;
    o.expect_text = f.expect;
    o.expect = mesh::parse_expect(f.expect);
    o.svg_path = f.svg;
    o.output_path = f.output;
    if (!f.svg_metric.empty())
        o.svg_metric = f.svg_metric == "lat" ? mesh::Metric::lat : mesh::Metric::bw;
    return o;
}

}  // namespace qps::commands
