// `qpscope path [HOST]`: what lies between this host and a peer.
#include <iostream>
#include <memory>
#include <unistd.h>

#include <fmt/format.h>

#include "commands/app.hpp"
#include "commands/emit.hpp"
#include "commands/link_flags.hpp"
#include "commands/option_values.hpp"
#include "formatters/path.hpp"
#include "src/decode/tos.hpp"
#include "src/error.hpp"
#include "src/ops/path.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::commands {

namespace {

struct PathFlags {
    std::string host;
    std::string device;
    unsigned port = 1;
    std::optional<unsigned> gid_index;
    unsigned tcp_port = 18615;
    double timeout_s = 10;
    KnobFlags knobs;
    unsigned probes = 20, burst = 200, pings = 50;
    std::string expect;
};

}  // namespace

void register_path(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<PathFlags>();
    CLI::App* cmd = app.add_subcommand(
        "path",
        "What lies between this host and a peer, both ways: whether RoCE v2 packets (UDP 4791) arrive apart from the "
        "TCP exchange, the largest message that arrives at each path MTU, loss, the round trip against the RC ACK "
        "timeout, the traffic class (DSCP, ECN) as received, and both sides' error counters. Without HOST this side "
        "serves one run. Exit 0 healthy, 1 a finding warns or fails (or --expect is missed), 2 bad usage, 3 the "
        "peer did not answer in time");
    cmd->add_option("host", f->host, "The server to connect to (name or address); none: serve one run")
        ->type_name(value_type::host);
    add_device_option(cmd, f->device, DeviceUse::choose);
    add_port_options(cmd, f->port, f->gid_index);
    add_tcp_port_option(cmd, f->tcp_port);
    cmd->add_option("-t,--timeout", f->timeout_s,
                    "Seconds to wait for the peer: to connect, at each step and for any completion; then exit 3")
        ->check(CLI::Range(0.1, 86400.0));
    add_knob_options(cmd, f->knobs, KnobSet::no_rnr);
    cmd->add_option("--probes", f->probes,
                    "Messages of each path MTU size (256..the sender's active MTU) in the MTU sweep (default 20)")
        ->check(CLI::Range(1u, ops::max_path_probes));
    cmd->add_option("--burst", f->burst, "Small messages each way for the loss rate (default 200)")
        ->check(CLI::Range(1u, ops::max_path_burst));
    cmd->add_option("--pings", f->pings, "Round trips measured (default 50)")
        ->check(CLI::Range(1u, ops::max_path_pings));
    cmd->add_option("--expect", f->expect,
                    "What the path must reach, comma list of mtu>=BYTES (largest size arriving whole, both ways), "
                    "loss<=PERCENT, rtt<=NUMBER{ns|us|ms|s} (median round trip); e.g. mtu>=4096,loss<=0,rtt<=20us")
        ->type_name("LIST");
    cmd->callback([f, cmd, &global] {
        ops::PathOptions o;
        o.host = f->host;
        o.device = f->device;
        o.port = static_cast<std::uint8_t>(f->port);
        o.gid_index = f->gid_index;
        o.tcp_port = static_cast<std::uint16_t>(f->tcp_port);
        o.timeout = std::chrono::milliseconds(static_cast<long>(f->timeout_s * 1000));
        // The RC knobs are what the round trip is judged against (its probes go over UD).
        o.knobs = to_knobs(f->knobs, IBV_QPT_RC, "rc");
        o.probes = f->probes;
        o.burst = f->burst;
        o.pings = f->pings;
        o.expect = health::parse_path_expect(f->expect);
        if (o.host.empty())
            for (const char* name : {"--tclass", "--dscp", "--sl", "--flow-label", "--pkey-index", "--qp-timeout",
                                     "--retry-cnt", "--probes", "--burst", "--pings"})
                if (cmd->count(name) > 0)
                    throw UsageError(fmt::format("{} is the client's to set: the server adopts the client's "
                                                 "parameters (give it with HOST)",
                                                 name));
        const bool show_progress = ::isatty(STDERR_FILENO) && !global.json;
        o.progress = [&](const std::string& what) {
            if (show_progress)
                global.info("path: " + what);  // none under --quiet
        };
        const ops::PathReport report = ops::run_path(o);
        if (global.quiet && !global.json) {
            for (const auto& line : formatters::path_problem_lines(report))
                std::cout << util::escape_text(line) << '\n';
        } else {
            emit(global, "path", [&](formatters::Printer& p) { formatters::render_path(report, p); });
        }
        if (const int rc = ops::path_exit_code(report); rc != 0)
            throw ReportedFailure{rc};
    });
}

}  // namespace qps::commands
