// `qpscope ports`: every device and port, decoded; as a table, JSON or
// Prometheus metrics, once or (--watch) every few seconds.
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <sstream>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/emit.hpp"
#include "commands/option_values.hpp"
#include "formatters/ports.hpp"
#include "formatters/ports_watch.hpp"
#include "formatters/prometheus.hpp"
#include "src/error.hpp"
#include "src/ops/ports.hpp"

namespace qps::commands {

namespace {

struct PortsOptions {
    std::string device;
    std::uint32_t port = 0;  // 0: all ports
    std::string format = "table";  // table | json | prometheus
    std::string watch;             // SECONDS; empty: one report
    std::uint64_t count = 0;       // samples under --watch; 0: until interrupted
};

enum class Format { table, json, prometheus };

// --format and the global --json name the same thing; they must agree.
Format output_format(const PortsOptions& o, bool format_given, bool global_json)
{
    const Format f = o.format == "json" ? Format::json : o.format == "prometheus" ? Format::prometheus : Format::table;
    if (global_json && format_given && f != Format::json)
        throw UsageError(fmt::format("--json and --format {} ask for different output: give one of them", o.format));
    return global_json ? Format::json : f;
}

void print_once(const ops::PortsQuery& query, Format format, const GlobalOptions& global)
{
    const report::PortsReport report = ops::ports_report(query);
    if (format == Format::prometheus) {
        formatters::render_ports_prometheus(report, std::cout);
        return;
    }
    formatters::PrinterOptions po = global.printer();
    po.json = format == Format::json;
    auto printer = formatters::make_printer(po, std::cout);
    print_document(*printer, "ports", [&](formatters::Printer& p) { formatters::render_ports(report, p); });
}

// A terminal gets the table redrawn in place; anything else (a pipe, a
// file, or --json) one JSON line per sample.
void watch(const ops::PortsQuery& query, Format format, const PortsOptions& o, const GlobalOptions& global)
{
    if (format == Format::prometheus)
        throw UsageError("--watch shows a table on a terminal or JSON lines: it does not take --format prometheus "
                         "(run --format prometheus from a timer instead)");
    report::WatchOptions wo;
    wo.interval_s = report::parse_watch_interval(o.watch);
    wo.count = o.count;
    const bool redraw = format == Format::table && ::isatty(STDOUT_FILENO);
    const formatters::PrinterOptions text = global.printer();
    ops::watch_ports(query, wo, [&](const report::WatchSample& sample) {
        const auto render = [&](formatters::Printer& p) { formatters::render_watch_sample(sample, p); };
        if (!redraw) {
            print_document(*formatters::make_json_lines_printer(std::cout), "ports --watch", render);
            return;
        }
        std::ostringstream screen;
        print_document(*formatters::make_printer(text, screen), "ports --watch", render);
        std::cout << formatters::terminal_frame(screen.str()) << std::flush;
    });  // Ctrl-C / SIGTERM end the watch normally: exit 0
}

}  // namespace

void register_ports(CLI::App& app, const GlobalOptions& global)
{
    auto opts = std::make_shared<PortsOptions>();
    CLI::App* cmd = app.add_subcommand(
        "ports", "Show every RDMA device and port with all attributes decoded: state, width x speed, "
                 "MTU, capability flags, GID and P_Key tables, counters");
    add_device_option(cmd, opts->device, DeviceUse::filter);
    auto* port = cmd->add_option("-i,--ib-port", opts->port, "Only this port number (1-based)")
                     ->check(CLI::Range(1, 255))
                     ->type_name(value_type::port);
    add_old_spelling(cmd, "-p,--port", opts->port, port)->check(CLI::Range(1, 255));
    auto* format = cmd->add_option("--format", opts->format,
                                   "Output: table (default), json (as --json), prometheus (text exposition format, "
                                   "for node_exporter's textfile collector)")
                       ->transform(one_of(std::vector<std::string>{"table", "json", "prometheus"}));
    auto* watch_opt = cmd->add_option("--watch", opts->watch,
                                      "Sample the counters every SECONDS (e.g. 1, 0.5) until Ctrl-C: a table redrawn "
                                      "in place on a terminal, else one JSON line per sample with per-second deltas")
                          ->type_name("SECONDS");
    cmd->add_option("--count", opts->count, "With --watch: stop after N samples")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}))
        ->type_name("N")
        ->needs(watch_opt);
    cmd->callback([opts, format, watch_opt, &global] {
        ops::PortsQuery query{opts->device, {}};
        if (opts->port != 0)
            query.port = opts->port;
        const Format f = output_format(*opts, format->count() > 0, global.json);
        if (watch_opt->count() > 0)
            watch(query, f, *opts, global);
        else
            print_once(query, f, global);
    });
}

}  // namespace qps::commands
