#include "mpi/run.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <mpi.h>
#include <optional>
#include <unistd.h>

#include "commands/mesh_flags.hpp"
#include "commands/spellings.hpp"
#include "mpi/collector.hpp"
#include "mpi/rank_setup.hpp"
#include "mpi/rounds.hpp"
#include "mpi/world.hpp"
#include "src/config.hpp"
#include "src/error.hpp"
#include "src/exit_code.hpp"
#include "src/net/interrupt.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::mpi {

namespace {

// What the command line sets.
struct CommandLine {
    commands::MeshFlags flags;
    bool json = false, quiet = false;
};

void add_options(CLI::App& app, CommandLine& cl)
{
    app.footer("Exit codes: 0 every pair passed, 1 a pair failed or missed --expect, 2 bad usage, 3 a rank was lost "
               "(died or hung; for the others, rank 0), 4 interrupted (SIGINT, SIGTERM).\nSee qpscope-mesh(1); `qpscope mesh --ranks N` shows the plan and its cost.");
    commands::add_mesh_options(&app, cl.flags);
    app.add_flag("--json", cl.json, "Print the report as one JSON document (rank 0)");
    app.add_flag("-q,--quiet", cl.quiet, "No progress line on stderr");
    app.set_version_flag("-V,--version", fmt::format("qpscope-mesh {}", QPSCOPE_VERSION));
}

// The command line into `options`. Returns the exit code of --help or
// --version; a refused command line's error goes into `parse_error`, said
// once MPI runs (rank 0's ends the run).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const CommandLine& cl,
                                      mesh::MeshOptions& options, std::string& parse_error)
{
    try {
        app.parse(argc, argv);
        options = commands::to_mesh_options(cl.flags);
        options.json = cl.json;
        options.quiet = cl.quiet;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        parse_error = e.what();
    } catch (const UsageError& e) {
        parse_error = commands::spelled(e, app);  // in this program's spelling
    }
    return std::nullopt;
}

// How long a rank waits for the others in each collective of the start:
// its own --timeout (rank 0's is not known before its plan arrives).
StartLimit start_limit(const Run& run)
{
    return std::chrono::milliseconds(static_cast<std::int64_t>(run.options.tests.timeout_s * 1000));
}

// MPI only bootstraps: its few messages go over TCP unless the user
// chose otherwise, so a fabric too broken to test cannot stop the run.
void start_mpi(int& argc, char**& argv, Run& run)
{
    ::setenv("OMPI_MCA_pml", "ob1", 0);
    ::setenv("OMPI_MCA_btl", "self,vader,tcp", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run.rank = world_rank();
    run.size = world_size();
    net::install_interrupt_handlers();
}

// Rank 0's command line rules: its error ends everyone; another rank's
// is that rank's set-up failure (an MPMD launch may give it other options).
// A mesh needs 2 ranks. Returns the exit code when the run cannot start
// (MPI finalized).
std::optional<int> refuse_start(const Run& run, const std::string& parse_error)
{
    const int verdict = broadcast_int(parse_error.empty() ? -1 : exit_usage, start_limit(run),
                                      "the broadcast of rank 0's command-line verdict");
    if (verdict >= 0) {
        if (run.rank == 0 && !parse_error.empty())
            std::cerr << "qpscope-mesh: " << util::escape_text(parse_error) << '\n';
        return finalize(verdict);
    }
    if (run.size < 2) {
        std::cerr << "qpscope-mesh: 1 rank: a mesh needs at least 2 (e.g. mpirun -np 4 --map-by node qpscope-mesh)\n";
        return finalize(exit_usage);
    }
    return std::nullopt;
}

// Rank 0's tests and pairs, taken by every rank.
mesh::PairSpec agree_on_plan(Run& run)
{
    const Json plan = Json::parse(broadcast(run.rank == 0 ? util::json_text(Json{{"tests", mesh::to_json(run.options.tests)},
                                                                                  {"pairs", mesh::pairs_name(run.options.pairs)},
                                                                                  {"seed", run.options.pairs.seed}})
                                                          : std::string(),
                                            start_limit(run)));
    run.options.tests = mesh::test_spec_from_json(plan.at("tests"));
    mesh::PairSpec pair_spec = mesh::parse_pairs(plan.at("pairs").get<std::string>());
    pair_spec.seed = plan.at("seed").get<std::uint64_t>();
    return pair_spec;
}

// This rank checked, every rank's record, the schedule and the timeout;
// on rank 0 the collector with the report's frame.
std::optional<Collector> prepare_rounds(Run& run, const mesh::PairSpec& pair_spec, const std::string& parse_error,
                                        const CLI::App& app)
{
    const mesh::RankInfo mine =
        local_setup(run.options, static_cast<std::uint32_t>(run.rank), node_local_rank(), parse_error, run.device,
                    [&app](const UsageError& e) { return commands::spelled(e, app); });
    run.ranks = gather_ranks(mine, run.size, start_limit(run));
    run.sched = mesh::schedule(pair_spec, static_cast<std::uint32_t>(run.size));
    run.timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run.options.tests.timeout_s));

    std::optional<Collector> collector;
    if (run.rank == 0) {
        mesh::MeshReport r;
        r.tests = run.options.tests;
        r.pairs = pair_spec;
        r.ranks = run.ranks;
        r.schedule = run.sched;
        collector.emplace(run.options, std::move(r));
    }
    return collector;
}

}  // namespace

int run(int argc, char** argv)
{
    CLI::App app{"qpscope-mesh: latency and bandwidth of every pair of ranks (start it with mpirun or srun)"};
    CommandLine cl;
    add_options(app, cl);

    // The command line first: --help and --version need no MPI.
    Run run;
    std::string parse_error;
    if (const auto code = parse_command_line(app, argc, argv, cl, run.options, parse_error))
        return *code;

    start_mpi(argc, argv, run);
    if (const auto code = refuse_start(run, parse_error))
        return *code;
    const mesh::PairSpec pair_spec = agree_on_plan(run);
    std::optional<Collector> collector = prepare_rounds(run, pair_spec, parse_error, app);
    const bool show_progress = run.rank == 0 && !run.options.quiet && ::isatty(STDERR_FILENO);
    barrier(start_limit(run), "the barrier before the first round");

    return run_rounds(run, collector, show_progress);
}

}  // namespace qps::mpi
