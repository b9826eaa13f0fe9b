// `qpscope ping-pong [HOST]`: latency, both sides in one report.
#include <iostream>
#include <memory>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/emit.hpp"
#include "commands/link_flags.hpp"
#include "formatters/latency.hpp"
#include "src/error.hpp"
#include "src/exit_code.hpp"
#include "src/ops/ping_pong.hpp"

namespace qps::commands {

void register_ping_pong(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<LinkFlags>();
    auto histogram = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand(
        "ping-pong", "Latency between two sides: without HOST this side serves, with HOST it is the client; the "
                     "client's parameters rule and both sides' figures are reported");
    add_link_options(cmd, *f, {"send", "2", 1000, 100, "iterations", "its own QP, a pair with the same thread of the peer"});
    cmd->add_flag("--histogram", *histogram, "Also print an ASCII histogram per size");
    auto srq = std::make_shared<bool>(false);
    cmd->add_flag("--srq", *srq, "--op send over rc or uc: each side's QPs (one per --threads pair) take their "
                                 "receives from one shared receive queue (perftest's use_srq option)");
    cmd->callback([f, histogram, srq, cmd, &global] {
        ops::PingPongOptions o;
        to_link_options(cmd, *f, o, {"--srq"});
        o.srq = *srq;
        o.histogram_rows = *histogram ? 20 : 0;
        ops::check_combination(o);

        const bool show_progress = ::isatty(STDERR_FILENO) && !global.json && o.sizes.size() > 1;
        const auto report = ops::run_ping_pong(o, [&](const report::SizeResult& s) {
            if (show_progress)
                global.info(formatters::progress_line(s));  // none under --quiet
        });
        emit(global, "ping-pong", [&](formatters::Printer& p) { formatters::render_ping_pong(report, p); });
        if (report.aborted)
            throw ReportedFailure{report.stalled_on_path || report.completion_failed || report.peer_gave_up
                                      ? exit_failed
                                      : aborted_run_exit_code()};
        if (report.atomic_mismatch())
            throw ReportedFailure{exit_failed};
    });
}

}  // namespace qps::commands
