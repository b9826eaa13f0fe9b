#include "mpi/rounds.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

#include "mpi/link.hpp"
#include "mpi/world.hpp"
#include "src/net/interrupt.hpp"
#include "src/ops/mesh_pair.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::mpi {

namespace {

// What rank 0 waits beyond the per-pair timeout for a round's records
// (the records themselves, a slow launcher), and what the others wait for
// rank 0's word beyond that: every rank ends within the timeout + 10 s of
// its round's start, whichever rank died, rank 0 included.
constexpr std::chrono::seconds report_grace{5}, control_grace{5};
// What rank 0 gives its sends of a round's word to all ranks.
constexpr std::chrono::seconds send_grace{2};

void progress(bool show, std::size_t round, std::size_t rounds)
{
    if (show)
        std::cerr << fmt::format("\rqpscope-mesh: round {} of {}", round + 1, rounds) << (round + 1 == rounds ? "\n" : "")
                  << std::flush;
}

// This rank's part of round `round`: its pair's tests, or nothing (it sits out).
std::optional<mesh::PairResult> run_my_pair(const Run& run, std::size_t round, Clock::time_point round_start)
{
    const mesh::Pair* pair = run.sched.pair_of(round, static_cast<std::uint32_t>(run.rank));
    if (!pair)
        return std::nullopt;
    const std::uint32_t partner = pair->a == static_cast<std::uint32_t>(run.rank) ? pair->b : pair->a;
    ops::PairContext ctx;
    ctx.pair = *pair;
    ctx.me = static_cast<std::uint32_t>(run.rank);
    ctx.round = static_cast<std::uint32_t>(round);
    ctx.mine = &run.ranks[static_cast<std::size_t>(run.rank)];
    ctx.partner = &run.ranks[partner];
    ctx.tests = run.options.tests;
    ctx.deadline = round_start + run.timeout;
    ctx.device = run.device;
    Link link(static_cast<int>(partner), tag(static_cast<std::uint32_t>(round), Channel::pair), ctx.deadline);
    return ops::run_pair(ctx, link, run.clock);
}

// A rank other than 0 after its round: its record to rank 0, then rank 0's
// word, both by the round's start + timeout + report_grace + control_grace
// (rank 0 gives up on the records at + report_grace). Returns nullopt to
// go on, else the exit code (MPI finalized). Without rank 0's word the rank
// leaves without MPI_Finalize: rank 0 died or hung, and nothing of MPI's
// may wait for it.
std::optional<int> report_and_wait(const Run& run, std::size_t round, Clock::time_point round_start,
                                   const std::optional<mesh::PairResult>& result)
{
    const auto deadline = round_start + run.timeout + report_grace + control_grace;
    send_to(0, tag(static_cast<std::uint32_t>(round), Channel::result),
            result ? util::json_text(mesh::to_json(*result)) : "null", deadline);
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
                               Clock::time_point& since, const std::optional<mesh::PairResult>& own)
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
            const mesh::PairResult side = mesh::pair_result_from_json(j);
            test_s = std::max(test_s, side.seconds);
            collector.add(side);
        } catch (const std::exception& e) {
            std::cerr << fmt::format("qpscope-mesh: rank {} sent a malformed record: {}\n", from,
                                     util::escape_text(e.what()));
        }
    }
    mesh::RoundTiming timing;
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
            const mesh::RankInfo& r = run.ranks[static_cast<std::size_t>(l)];
            names.push_back(ops::rank_name(r));
            collector.lost(static_cast<std::uint32_t>(round), r.rank, fmt::format("{} was lost", ops::rank_name(r)));
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

// Rank 0 after its round's records: the others told to go on, or after the
// last round the report and "end CODE". Returns the exit code after the
// last round (MPI finalized), nullopt to go on; a lost rank or an
// interrupt ends the run here (stop_run).
std::optional<int> close_round(const Run& run, Collector& collector, std::size_t round, Clock::time_point round_start,
                               Clock::time_point& since, const std::optional<mesh::PairResult>& own, bool show_progress)
{
    const std::vector<int> lost = collect_round(run, collector, round, round_start, since, own);
    if (!lost.empty() || net::interrupt_pending())
        stop_run(run, collector, round, lost, show_progress);
    const int control_tag = tag(static_cast<std::uint32_t>(round), Channel::control);
    const bool last = round + 1 == run.sched.rounds.size();
    const int code = last ? collector.finish() : 0;
    const auto deadline = Clock::now() + send_grace;
    for (int to = 1; to < run.size; ++to)
        send_to(to, control_tag, last ? fmt::format("end {}", code) : "go", deadline);
    if (last)
        return finalize(code);
    return std::nullopt;
}

}  // namespace

int run_rounds(const Run& run, std::optional<Collector>& collector, bool show_progress)
{
    Clock::time_point since = Clock::now();  // rank 0: the previous round's end
    const std::size_t rounds = run.sched.rounds.size();
    for (std::size_t round = 0; round < rounds; ++round) {
        const auto round_start = Clock::now();
        progress(show_progress, round, rounds);
        const std::optional<mesh::PairResult> result = run_my_pair(run, round, round_start);
        if (run.rank != 0) {
            if (const auto code = report_and_wait(run, round, round_start, result))
                return *code;
            continue;
        }
        if (const auto code = close_round(run, *collector, round, round_start, since, result, show_progress))
            return *code;
    }
    return finalize(0);  // no round: cannot happen with 2 or more ranks
}

}  // namespace qps::mpi
