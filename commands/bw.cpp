// `qpscope bw [HOST]`: bandwidth and message rate, both sides in one report.
#include <iostream>
#include <memory>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/option_values.hpp"
#include "commands/emit.hpp"
#include "commands/link_flags.hpp"
#include "formatters/bandwidth.hpp"
#include "src/error.hpp"
#include "src/ops/bw.hpp"

namespace qps::commands {

namespace {
struct BwFlags {
    unsigned tx_depth = 128, rx_depth = 512, post_list = 1;
    std::optional<unsigned> cq_mod;
    unsigned qps = 1;
    bool bidir = false;
    bool srq = false;
    double window_ms = 10;
    std::string unit = "Gb/s";
};
}  // namespace

void register_bw(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<LinkFlags>();
    auto b = std::make_shared<BwFlags>();
    CLI::App* cmd = app.add_subcommand(
        "bw", "Bandwidth and message rate between two sides: without HOST this side serves, with HOST it is the "
              "client; the client's parameters rule and both sides' figures are reported");
    add_link_options(cmd, *f, {"write", "64K", 5000, 100, "messages per QP", "its own --qps QPs"});
    cmd->add_option("--tx-depth", b->tx_depth, "Send queue depth per QP, kept full (default 128)")
        ->check(CLI::Range(1u, 32768u));
    cmd->add_option("--rx-depth", b->rx_depth, "Receive queue depth per QP for --op send (default 512); with --srq the one SRQ's depth")
        ->check(CLI::Range(1u, 32768u));
    cmd->add_option("--post-list", b->post_list, "WRs chained into one ibv_post_send (default 1)")
        ->check(CLI::Range(1u, 32768u));
    cmd->add_option("--cq-mod", b->cq_mod, "One signalled WR in this many (default 64, at most --tx-depth)")
        ->check(CLI::Range(1u, 32768u));
    cmd->add_option("-q,--qps", b->qps, "Queue pairs, each with its own CQs and buffer (default 1)")
        ->check(CLI::Range(1u, 64u));
    cmd->add_flag("-b,--bidir", b->bidir, "Both sides post at once; each direction and the total are reported");
    cmd->add_flag("--srq", b->srq, "--op send over rc or uc: a receiving side's QPs take their receives from one "
                                   "shared receive queue of --rx-depth (perftest's use_srq option); the report says how "
                                   "many QPs it served");
    cmd->add_option("--window", b->window_ms, "Milliseconds per window for peak and minimum bandwidth (default 10)")
        ->check(CLI::Range(0.01, 60000.0));
    std::vector<std::string> units;
    for (const auto& u : report::rate_units())
        units.emplace_back(u.name);
    cmd->add_option("-u,--unit", b->unit, "Unit of the table: Gb/s (default), GB/s, GiB/s, Mb/s, MB/s, MiB/s; JSON "
                                          "always has bytes/s and messages/s")
        ->transform(one_of(units));
    cmd->callback([f, b, cmd, &global] {
        ops::BwOptions o;
        to_link_options(cmd, *f, o,
                        {"--tx-depth", "--rx-depth", "--post-list", "--cq-mod", "--qps", "--bidir", "--srq", "--window"});
        o.tx_depth = b->tx_depth;
        o.rx_depth = b->rx_depth;
        o.post_list = b->post_list;
        o.cq_mod = b->cq_mod.value_or(0);
        o.qps = b->qps;
        o.bidir = b->bidir;
        o.srq = b->srq;
        o.window_ms = b->window_ms;
        o.unit = b->unit;
        ops::check_bw_options(o);

        // A live line on a terminal, replaced in place, cleared after each size
        // (not a line of its own, so not through global.info; none under --quiet).
        const bool live = ::isatty(STDERR_FILENO) && !global.json && !global.quiet;
        const auto progress = [&](std::uint32_t size, double s, double rate) {
            if (live)
                std::cerr << '\r' << formatters::bw_progress_line(size, s, rate, o.unit) << "\033[K" << std::flush;
        };
        const auto size_done = [&](const report::BwSizeResult&) {
            if (live)
                std::cerr << "\r\033[K" << std::flush;
        };
        const auto report = ops::run_bw(o, progress, size_done);
        emit(global, "bw", [&](formatters::Printer& p) { formatters::render_bw(report, p); });
        if (report.aborted)
            throw ReportedFailure{report.stalled_on_path ? exit_failed : aborted_run_exit_code()};
        if (report.verify_failed)
            throw ReportedFailure{exit_failed};
    });
}

}  // namespace qps::commands
