#include "mesh/run.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <mpi.h>
#include <unistd.h>

#include "commands/mesh_flags.hpp"
#include "formatters/mesh.hpp"
#include "formatters/mesh_svg.hpp"
#include "mesh/link.hpp"
#include "src/config.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/exit_code.hpp"
#include "src/health/preflight.hpp"
#include "src/net/interrupt.hpp"
#include "src/ops/mesh_pair.hpp"
#include "src/perf/clock.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/test_resources.hpp"

namespace qps::mesh::mpi {

namespace {

using Clock = std::chrono::steady_clock;
// A rank lost is a peer lost: qpscope's timeout code (src/exit_code.hpp).
constexpr int exit_lost = exit_timeout;
// What rank 0 waits beyond the per-pair timeout for a round's records
// (the records themselves, a slow launcher), and what the others wait for
// rank 0's word beyond that: every rank ends within the timeout + 10 s of
// its round's start, whichever rank died, rank 0 included.
constexpr std::chrono::seconds report_grace{5}, control_grace{5};
// What rank 0 gives its sends of a round's word to all ranks, and what any
// rank gives MPI_Finalize before it leaves without it.
constexpr std::chrono::seconds send_grace{2}, finalize_grace{5};
constexpr std::size_t rank_record_bytes = 4096;
constexpr std::chrono::seconds output_interval{5};

int world_rank()
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size()
{
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

std::string host_name()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return "?";
    return buf;
}

// The rank's index among the ranks of its node (for --per-device).
int node_local_rank()
{
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    int r = 0;
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
}

// This rank's device, port and GID, checked the way ping-pong checks them
// (src/health/preflight), before any pair: a local fault is named as this
// rank's, never as its partners' silence. `opened`: the device, opened
// once here, for every pair of this rank.
RankInfo local_setup(const MeshOptions& o, std::uint32_t rank, int local_rank, const std::string& parse_error,
                     verbs::SharedDevice& opened)
{
    RankInfo info;
    info.rank = rank;
    info.host = host_name();
    info.port = o.port;
    if (!parse_error.empty()) {
        info.setup_error = parse_error;
        return info;
    }
    try {
        health::PreflightSpec spec;
        spec.device = o.device;
        if (o.per_device && o.device.empty()) {
            const auto devices = verbs::list_devices();
            if (static_cast<std::size_t>(local_rank) >= devices.size())
                throw UsageError(fmt::format("--per-device: node-local rank {} has no device ({} on this node)",
                                             local_rank, devices.size()));
            spec.device = devices[static_cast<std::size_t>(local_rank)].name;
        }
        spec.port = o.port;
        spec.gid_index = o.gid_index;
        verbs::TestSetup setup;
        setup.buffer_bytes = std::max({o.tests.lat_size, o.tests.bw_size, 64u});
        spec.memlock_bytes = verbs::registered_bytes(setup);
        spec.memlock_what = "the test buffers";
        health::Preflight checked = health::preflight(spec);
        info.device = checked.device;
        opened = std::move(checked.opened);
        setup.device = info.device;
        setup.opened = opened;
        setup.port = o.port;
        setup.gid_index = o.gid_index;
        verbs::TestResources probe(setup);
        info.gid_index = probe.gid().index;
        info.gid = decode::format_gid(probe.gid().gid);
        const ibv_port_attr attr = probe.port_attr();
        if (const auto rate = decode::link_rate(attr.active_width, attr.active_speed))
            info.rate_gbps = rate->gbps;
    } catch (const std::exception& e) {
        info.setup_error = e.what();
    }
    if (info.setup_error.size() > 1000)
        info.setup_error.resize(1000);
    return info;
}

std::vector<RankInfo> gather_ranks(const RankInfo& mine, int n)
{
    std::string record = util::json_text(to_json(mine));
    record.resize(rank_record_bytes, '\0');
    std::string all(rank_record_bytes * static_cast<std::size_t>(n), '\0');
    MPI_Allgather(record.data(), static_cast<int>(rank_record_bytes), MPI_CHAR, all.data(),
                  static_cast<int>(rank_record_bytes), MPI_CHAR, MPI_COMM_WORLD);
    std::vector<RankInfo> ranks;
    for (int i = 0; i < n; ++i) {
        const char* start = all.data() + rank_record_bytes * static_cast<std::size_t>(i);
        ranks.push_back(rank_info_from_json(Json::parse(std::string(start, ::strnlen(start, rank_record_bytes)))));
    }
    return ranks;
}

std::string broadcast(const std::string& text)
{
    int size = static_cast<int>(text.size());
    MPI_Bcast(&size, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string out = text;
    out.resize(static_cast<std::size_t>(size));
    MPI_Bcast(out.data(), size, MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
}

// Rank 0's side: the report as the records come in, and its outputs.
class Collector {
public:
    Collector(MeshOptions o, MeshReport r) : options_(std::move(o)), report_(std::move(r))
    {
        for (std::size_t round = 0; round < report_.schedule.rounds.size(); ++round)
            for (const Pair& p : report_.schedule.rounds[round]) {
                index_[{p.a, p.b}] = report_.results.size();
                PairResult pr;
                pr.pair = p;
                pr.round = static_cast<std::uint32_t>(round);
                report_.results.push_back(pr);
            }
    }

    void add(const PairResult& side)
    {
        const auto it = index_.find({side.pair.a, side.pair.b});
        if (it == index_.end())
            return;
        PairResult& base = report_.results[it->second];
        if (base.status == PairStatus::not_run)
            base = side;
        else
            merge_sides(base, side);
    }

    // A pair whose rank was lost: failed with the loss as its cause.
    void lost(std::uint32_t round, std::uint32_t rank, const std::string& why)
    {
        for (auto& p : report_.results)
            if (p.round == round && (p.pair.a == rank || p.pair.b == rank) && p.status != PairStatus::failed) {
                p.status = PairStatus::failed;
                p.cause = why;
            }
    }

    // The file after a round: at once for the first, then at most every
    // few seconds (all pairs of 2,048 ranks are 2 million records a write).
    void round_done(const RoundTiming& t)
    {
        report_.timings.push_back(t);
        report_.rounds_done = static_cast<std::uint32_t>(report_.timings.size());
        if (Clock::now() - last_write_ >= output_interval)
            write_output();
    }

    void stop(const std::string& why)
    {
        report_.stopped = why;
        write_output();
    }

    // The report on stdout (and the files); returns the exit code.
    int finish()
    {
        report_.complete = report_.stopped.empty() && report_.rounds_done == report_.schedule.rounds.size();
        const Analysis a = analyse(report_, options_.threshold, options_.expect);
        write_output();
        if (!options_.svg_path.empty())
            write_file(options_.svg_path, fmt_out::mesh_svg(report_, svg_metric_of(options_)));
        if (options_.json)
            std::cout << util::json_text(fmt_out::mesh_json(report_, a, options_), 2) << '\n';
        else
            std::cout << fmt_out::mesh_text(report_, a, options_);
        std::cout.flush();
        if (!report_.stopped.empty())
            return net::interrupt_pending() ? exit_interrupted : exit_lost;
        return a.healthy() ? 0 : exit_failed;
    }

private:
    void write_output()
    {
        if (options_.output_path.empty())
            return;
        last_write_ = Clock::now();
        const Analysis a = analyse(report_, options_.threshold, options_.expect);
        write_file(options_.output_path, util::json_text(fmt_out::mesh_json(report_, a, options_), 2) + "\n");
    }

    // Written whole, then renamed: a reader never sees half a document.
    static void write_file(const std::string& path, const std::string& text)
    {
        const std::string tmp = path + ".tmp";
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << text;
            if (!out) {
                std::cerr << fmt::format("qpscope-mesh: cannot write {}\n", tmp);
                return;
            }
        }
        if (std::rename(tmp.c_str(), path.c_str()) != 0)
            std::cerr << fmt::format("qpscope-mesh: cannot rename {} to {}\n", tmp, path);
    }

    MeshOptions options_;
    MeshReport report_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index_;
    Clock::time_point last_write_{};
};

void progress(bool show, std::size_t round, std::size_t rounds)
{
    if (show)
        std::cerr << fmt::format("\rqpscope-mesh: round {} of {}", round + 1, rounds) << (round + 1 == rounds ? "\n" : "")
                  << std::flush;
}

// Ends a rank that cannot finalize (a rank of the job is gone): what was
// written is flushed, MPI is left as it is.
[[noreturn]] void leave(int code)
{
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
}

volatile std::sig_atomic_t finalize_code = 0;

// MPI_Finalize, bounded: a rank of the job that left meanwhile (rank 0
// killed after its last word) can make it wait for ever; past
// finalize_grace the rank leaves with the same code.
int finalize(int code)
{
    std::cout.flush();
    std::cerr.flush();
    finalize_code = code;
    struct sigaction sa {};
    sa.sa_handler = [](int) { std::_Exit(finalize_code); };
    ::sigaction(SIGALRM, &sa, nullptr);
    ::alarm(static_cast<unsigned>(finalize_grace.count()));
    MPI_Finalize();
    ::alarm(0);
    return code;
}

// What every rank knows once the run has started.
struct Run {
    int rank = 0, size = 0;
    MeshOptions options;
    std::vector<RankInfo> ranks;
    Schedule sched;
    Clock::duration timeout{};
    perf::Clock clock = perf::Clock::system();
    verbs::SharedDevice device;  // this rank's, opened once by local_setup
};

// This rank's part of round `round`: its pair's tests, or nothing (it sits out).
std::optional<PairResult> run_my_pair(const Run& run, std::size_t round, Clock::time_point round_start)
{
    const Pair* pair = run.sched.pair_of(round, static_cast<std::uint32_t>(run.rank));
    if (!pair)
        return std::nullopt;
    const std::uint32_t partner = pair->a == static_cast<std::uint32_t>(run.rank) ? pair->b : pair->a;
    PairContext ctx;
    ctx.pair = *pair;
    ctx.me = static_cast<std::uint32_t>(run.rank);
    ctx.round = static_cast<std::uint32_t>(round);
    ctx.mine = &run.ranks[static_cast<std::size_t>(run.rank)];
    ctx.partner = &run.ranks[partner];
    ctx.tests = run.options.tests;
    ctx.deadline = round_start + run.timeout;
    ctx.device = run.device;
    Link link(static_cast<int>(partner), tag(static_cast<std::uint32_t>(round), Channel::pair), ctx.deadline);
    return run_pair(ctx, link, run.clock);
}

// A rank other than 0 after its round: its record to rank 0, then rank 0's
// word, both by the round's start + timeout + report_grace + control_grace
// (rank 0 gives up on the records at + report_grace). Returns nullopt to
// go on, else the exit code (MPI finalized). Without rank 0's word the rank
// leaves without MPI_Finalize: rank 0 died or hung, and nothing of MPI's
// may wait for it.
std::optional<int> report_and_wait(const Run& run, std::size_t round, Clock::time_point round_start,
                                   const std::optional<PairResult>& result)
{
    const auto deadline = round_start + run.timeout + report_grace + control_grace;
    send_to(0, tag(static_cast<std::uint32_t>(round), Channel::result),
            result ? util::json_text(to_json(*result)) : "null", deadline);
    const auto word = receive_from(0, tag(static_cast<std::uint32_t>(round), Channel::control), deadline);
    if (!word) {
        if (net::interrupt_pending()) {
            std::cerr << fmt::format("qpscope-mesh: rank {}: interrupted\n", run.rank);
            leave(exit_interrupted);
        }
        std::cerr << fmt::format("qpscope-mesh: rank {}: no word from rank 0 within the per-pair timeout ({:g} s) "
                                 "plus {} s of round {}: rank 0 died or hung; no report from this rank\n",
                                 run.rank, run.options.tests.timeout_s, (report_grace + control_grace).count(),
                                 round + 1);
        leave(exit_lost);
    }
    if (*word == "go")
        return std::nullopt;
    if (word->rfind("end ", 0) == 0)
        return finalize(std::atoi(word->c_str() + 4));
    // "stop CODE": rank 0 ended the run (a rank lost, or interrupted) and
    // leaves without MPI_Finalize; so does this rank.
    leave(word->rfind("stop ", 0) == 0 ? std::atoi(word->c_str() + 5) : exit_lost);
}

// Rank 0 after its own pair: every record of the round until the pair
// timeout (+ grace) has passed. Returns the ranks that sent none. The
// round's timing: its wall time from `since` (the previous round's last
// record in, or the start) to this round's last record in, so it holds the
// slowest rank's whole round: the word to go on, QP set-up and endpoint
// exchange, the tests, its record; `since` moves on to now.
std::vector<int> collect_round(const Run& run, Collector& collector, std::size_t round, Clock::time_point round_start,
                               Clock::time_point& since, const std::optional<PairResult>& own)
{
    const int result_tag = tag(static_cast<std::uint32_t>(round), Channel::result);
    double test_s = own ? own->seconds : 0;
    if (own)
        collector.add(*own);
    std::vector<int> lost;
    for (int from = 1; from < run.size; ++from) {
        const auto text = receive_from(from, result_tag, round_start + run.timeout + report_grace);
        if (!text) {
            lost.push_back(from);
            continue;
        }
        const Json j = Json::parse(*text, nullptr, false);
        if (j.is_discarded() || j.is_null())
            continue;
        try {
            const PairResult side = pair_result_from_json(j);
            test_s = std::max(test_s, side.seconds);
            collector.add(side);
        } catch (const std::exception& e) {
            std::cerr << fmt::format("qpscope-mesh: rank {} sent a malformed record: {}\n", from,
                                     util::escape_text(e.what()));
        }
    }
    RoundTiming timing;
    const auto now = Clock::now();
    timing.wall_s = std::chrono::duration<double>(now - since).count();
    since = now;
    timing.test_s = test_s;
    collector.round_done(timing);
    return lost;
}

// Rank 0 ends the run early: the others are told to stop, the report says why.
[[noreturn]] void stop_run(const Run& run, Collector& collector, std::size_t round, const std::vector<int>& lost,
                           bool show_progress)
{
    std::string why = "interrupted";
    if (!net::interrupt_pending()) {
        std::vector<std::string> names;
        for (int l : lost) {
            const RankInfo& r = run.ranks[static_cast<std::size_t>(l)];
            names.push_back(rank_name(r));
            collector.lost(static_cast<std::uint32_t>(round), r.rank, fmt::format("{} was lost", rank_name(r)));
        }
        why = fmt::format("{} did not report round {} within the per-pair timeout ({:g} s) plus {} s: died or hung",
                          fmt::join(names, ", "), round + 1, run.options.tests.timeout_s, report_grace.count());
    }
    collector.stop(why);
    const int control_tag = tag(static_cast<std::uint32_t>(round), Channel::control);
    const int code = net::interrupt_pending() ? exit_interrupted : exit_lost;
    const auto deadline = Clock::now() + send_grace;
    for (int to = 1; to < run.size; ++to)
        if (net::interrupt_pending() || std::find(lost.begin(), lost.end(), to) == lost.end())
            send_to(to, control_tag, fmt::format("stop {}", code), deadline);
    if (show_progress)
        std::cerr << '\n';
    std::cerr << "qpscope-mesh: the run ended early: " << util::escape_text(why) << '\n';
    leave(collector.finish());
}

}  // namespace

int run(int argc, char** argv)
{
    CLI::App app{"qpscope-mesh: latency and bandwidth of every pair of ranks (start it with mpirun or srun)"};
    app.footer("Exit codes: 0 every pair passed, 1 a pair failed or missed --expect, 2 bad usage, 3 a rank was lost "
               "(died or hung; for the others, rank 0), 4 interrupted (SIGINT, SIGTERM).\nSee qpscope-mesh(1); `qpscope mesh --ranks N` shows the plan and its cost.");
    cli::MeshFlags flags;
    bool json = false, quiet = false;
    cli::add_mesh_options(&app, flags);
    app.add_flag("--json", json, "Print the report as one JSON document (rank 0)");
    app.add_flag("-q,--quiet", quiet, "No progress line on stderr");
    app.set_version_flag("-V,--version", fmt::format("qpscope-mesh {}", QPSCOPE_VERSION));

    // The command line first: --help and --version need no MPI.
    Run run;
    std::string parse_error;
    try {
        app.parse(argc, argv);
        run.options = cli::to_mesh_options(flags);
        run.options.json = json;
        run.options.quiet = quiet;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        parse_error = e.what();
    } catch (const UsageError& e) {
        parse_error = e.what();
    }

    // MPI only bootstraps: its few messages go over TCP unless the user
    // chose otherwise, so a fabric too broken to test cannot stop the run.
    ::setenv("OMPI_MCA_pml", "ob1", 0);
    ::setenv("OMPI_MCA_btl", "self,vader,tcp", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run.rank = world_rank();
    run.size = world_size();
    net::install_interrupt_handlers();

    // Rank 0's command line rules: its error ends everyone; another rank's
    // is that rank's set-up failure (an MPMD launch may give it other options).
    int verdict = parse_error.empty() ? -1 : exit_usage;
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (verdict >= 0) {
        if (run.rank == 0 && !parse_error.empty())
            std::cerr << "qpscope-mesh: " << util::escape_text(parse_error) << '\n';
        return finalize(verdict);
    }
    if (run.size < 2) {
        std::cerr << "qpscope-mesh: 1 rank: a mesh needs at least 2 (e.g. mpirun -np 4 --map-by node qpscope-mesh)\n";
        return finalize(exit_usage);
    }
    const Json plan = Json::parse(broadcast(run.rank == 0 ? util::json_text(Json{{"tests", to_json(run.options.tests)},
                                                                                  {"pairs", pairs_name(run.options.pairs)},
                                                                                  {"seed", run.options.pairs.seed}})
                                                          : std::string()));
    run.options.tests = test_spec_from_json(plan.at("tests"));
    PairSpec pair_spec = parse_pairs(plan.at("pairs").get<std::string>());
    pair_spec.seed = plan.at("seed").get<std::uint64_t>();

    const RankInfo mine = local_setup(run.options, static_cast<std::uint32_t>(run.rank), node_local_rank(), parse_error,
                                        run.device);
    run.ranks = gather_ranks(mine, run.size);
    run.sched = schedule(pair_spec, static_cast<std::uint32_t>(run.size));
    run.timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run.options.tests.timeout_s));

    std::optional<Collector> collector;
    if (run.rank == 0) {
        MeshReport r;
        r.tests = run.options.tests;
        r.pairs = pair_spec;
        r.ranks = run.ranks;
        r.schedule = run.sched;
        collector.emplace(run.options, std::move(r));
    }
    const bool show_progress = run.rank == 0 && !run.options.quiet && ::isatty(STDERR_FILENO);
    MPI_Barrier(MPI_COMM_WORLD);

    Clock::time_point since = Clock::now();  // rank 0: the previous round's end
    const std::size_t rounds = run.sched.rounds.size();
    for (std::size_t round = 0; round < rounds; ++round) {
        const auto round_start = Clock::now();
        progress(show_progress, round, rounds);
        const std::optional<PairResult> result = run_my_pair(run, round, round_start);
        if (run.rank != 0) {
            if (const auto code = report_and_wait(run, round, round_start, result))
                return *code;
            continue;
        }
        const std::vector<int> lost = collect_round(run, *collector, round, round_start, since, result);
        if (!lost.empty() || net::interrupt_pending())
            stop_run(run, *collector, round, lost, show_progress);
        const int control_tag = tag(static_cast<std::uint32_t>(round), Channel::control);
        const bool last = round + 1 == rounds;
        const int code = last ? collector->finish() : 0;
        const auto deadline = Clock::now() + send_grace;
        for (int to = 1; to < run.size; ++to)
            send_to(to, control_tag, last ? fmt::format("end {}", code) : "go", deadline);
        if (last)
            return finalize(code);
    }
    return finalize(0);  // no round: cannot happen with 2 or more ranks
}

}  // namespace qps::mesh::mpi
