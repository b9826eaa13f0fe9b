// `qpscope watch`: every change on the host's RDMA as it happens (async
// events, devices, ports, GIDs, counters, QPs and rdma_cm IDs), one line
// each, or JSON Lines with --json.
#include <chrono>
#include <fmt/chrono.h>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/emit.hpp"
#include "commands/option_values.hpp"
#include "formatters/top.hpp"
#include "formatters/top_screen.hpp"
#include "formatters/watch.hpp"
#include "src/ops/watch.hpp"

namespace qps::commands {

namespace {

struct WatchOptions {
    std::string device;
    std::string interval = "1";  // SECONDS between looks
    std::uint64_t count = 0;     // looks; 0: until interrupted
    std::string prometheus;      // ADDR:PORT to serve /metrics on (when --prometheus is given)
    bool top = false;            // the full-screen view
};

// --top: the records and looks go into the view's model, redrawn as they
// come; q ends it. The screen is gone (the terminal as it was) before the
// last record is printed as a line, and before any error is.
void watch_top(const ops::WatchQuery& query)
{
    std::string last;
    {
        formatters::TopScreen screen;
        watch::TopBuilder top;
        const auto redraw = [&] {
            const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
            screen.draw(formatters::top_lines(top.model(), fmt::format("{:%H:%M:%S} UTC", now), screen.width(),
                                              screen.height()));
        };
        ops::WatchHooks hooks;
        hooks.on_look = [&](const watch::HostLook& look, std::chrono::steady_clock::time_point now) {
            top.look(look, now);
            redraw();
        };
        hooks.input_fd = screen.input_fd();
        hooks.on_input = [&] { return screen.quit_pressed(); };
        ops::watch_host(
            query,
            [&](const watch::WatchRecord& r) {
                top.record(r);
                last = formatters::watch_line(r, false);
                if (top.model().looks > 0)
                    redraw();
            },
            hooks);
    }
    std::cout << last << '\n' << std::flush;
}

}  // namespace

void register_watch(CLI::App& app, const GlobalOptions& global)
{
    auto opts = std::make_shared<WatchOptions>();
    CLI::App* cmd = app.add_subcommand(
        "watch", "Report every change on this host's RDMA as it happens, with what it means: asynchronous events "
                 "(PORT_ERR, GID_CHANGE, ...), devices added or removed, port states, GID table entries, error "
                 "counters that rose and each port's packet rate, QPs of every process created, destroyed, "
                 "changing state or stalled, rdma_cm IDs changing state. One line each; --json: JSON Lines");
    add_device_option(cmd, opts->device, DeviceUse::filter);
    cmd->add_option("--interval", opts->interval,
                    "Look at the devices, QPs and counters every SECONDS (e.g. 1, 0.5; default 1); events are "
                    "reported as they come in between")
        ->type_name("SECONDS");
    cmd->add_option("--count", opts->count, "Stop after N looks (for scripts and cron)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}))
        ->type_name("N");
    CLI::Option* prometheus = cmd->add_option("--prometheus", opts->prometheus,
                    "Also serve the metrics of each look on http://ADDR:PORT/metrics for Prometheus while the watch "
                    "runs: the port and counter metrics that ports writes for Prometheus, QPs by state and owner, "
                    "rdma_cm IDs by state, records by kind. PORT alone listens on 127.0.0.1 (IPv4 only); PORT 0 "
                    "takes a free one (the started record says which)")
        ->type_name("ADDR:PORT");
    cmd->add_flag("--top", opts->top,
                  "A full-screen view instead of lines: each port's state and packet rates, the busiest QPs (PSNs a "
                  "second) with owner and state, the last records; redrawn each look, q quits");
    cmd->callback([opts, prometheus, &global] {
        ops::WatchQuery query;
        query.device = opts->device;
        query.interval_s = report::parse_watch_interval(opts->interval);
        query.looks = opts->count;
        if (prometheus->count() > 0)  // given, even as '' (an error, not "none")
            query.metrics_at = watch::parse_listen_address(opts->prometheus);
        const formatters::PrinterOptions po = global.printer();
        if (opts->top) {
            if (po.json)
                throw UsageError("--top draws a screen and --json writes JSON Lines: give one of them");
            watch_top(query);
            return;
        }
        if (po.json) {
            auto printer = formatters::make_json_lines_printer(std::cout);
            ops::watch_host(query, [&](const watch::WatchRecord& r) {
                print_document(*printer, "watch", [&](formatters::Printer& p) { formatters::render_watch_record(r, p); });
            });
            return;
        }
        ops::watch_host(query, [&](const watch::WatchRecord& r) {
            std::cout << formatters::watch_line(r, po.color) << '\n' << std::flush;
        });
    });
}

}  // namespace qps::commands
