// `qpscope ping-pong [HOST]`: latency, both sides in one report.
#include <iostream>
#include <memory>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/latency.hpp"
#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/perf/pingpong.hpp"
#include "src/perf/sizes.hpp"
#include "src/qp/options.hpp"

namespace qps::cli {

namespace {
constexpr std::array<Named<perf::Op>, 3> op_names{{
    {"send", perf::Op::send},
    {"write", perf::Op::write},
    {"read", perf::Op::read},
}};

constexpr std::array<Named<perf::InlineMode>, 3> inline_names{{
    {"auto", perf::InlineMode::automatic},
    {"on", perf::InlineMode::on},
    {"off", perf::InlineMode::off},
}};

struct PingPongFlags {
    std::string host;
    std::string device;
    unsigned port = 1;
    std::optional<unsigned> gid_index;
    std::string op = "send", transport = "rc", sizes = "2";
    std::uint64_t iterations = 1000;
    std::optional<double> duration;
    std::uint64_t warmup = 100;
    std::string inline_mode = "auto";
    std::optional<unsigned> mtu;
    unsigned tcp_port = 18615;
    double timeout_s = 10;
    std::optional<int> cpu;
    bool histogram = false;
};
}  // namespace

void register_ping_pong(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<PingPongFlags>();
    CLI::App* cmd = app.add_subcommand(
        "ping-pong", "Latency between two sides: without HOST this side serves, with HOST it is the client; the "
                     "client's parameters rule and both sides' figures are reported");
    cmd->add_option("host", f->host, "The server to connect to (name or address); none: serve one test")
        ->type_name(value_type::host);
    cmd->add_option("-d,--device", f->device, "Device (default: the first)")->type_name(value_type::device);
    cmd->add_option("-i,--ib-port", f->port, "Device port")
        ->check(CLI::Range(1u, 255u))
        ->type_name(value_type::port);
    cmd->add_option("-x,--gid-index", f->gid_index,
                    "GID index (default: the best: RoCE v2 with an IPv4 address, then RoCE v2, RoCE v1, IB)");
    cmd->add_option("--op", f->op, "send, write or read")->transform(one_of(op_names));
    cmd->add_option("--transport", f->transport, "rc, uc or ud (UC: send, write; UD: send)")
        ->transform(one_of(qp::qp_type_words()));
    cmd->add_option("-s,--size", f->sizes, "Bytes: 64, a list 64,4096, or a doubling sweep 2:8M (default 2)");
    auto* n = cmd->add_option("-n,--iterations", f->iterations, "Measured iterations per size (default 1000)")
                  ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    auto* d = cmd->add_option("-D,--duration", f->duration, "Measure each size for this many seconds instead")
                  ->check(CLI::Range(0.001, 86400.0));
    n->excludes(d);
    cmd->add_option("-w,--warmup", f->warmup, "Iterations before measuring (default 100)");
    cmd->add_option("--inline", f->inline_mode, "auto (when the size fits the device's inline limit), on, off")
        ->transform(one_of(inline_names));
    cmd->add_option("-m,--mtu", f->mtu, "Path MTU in bytes (default: the port's active MTU)")
        ->transform(one_of(qp::mtu_words()));
    cmd->add_option("-p,--tcp-port", f->tcp_port, "TCP port of the out-of-band exchange (default 18615)")
        ->check(CLI::Range(1u, 65535u));
    cmd->add_option("-t,--timeout", f->timeout_s, "Seconds to wait for the peer: to connect, at each step, and "
                                                  "for any completion; then exit 3 with what was measured")
        ->check(CLI::Range(0.1, 86400.0));
    cmd->add_option("-c,--cpu", f->cpu, "Pin this side to this CPU")->check(CLI::Range(0, 4095));
    cmd->add_flag("--histogram", f->histogram, "Also print an ASCII histogram per size");
    cmd->callback([f, cmd, &global] {
        perf::PingPongOptions o;
        o.host = f->host;
        o.tcp_port = static_cast<std::uint16_t>(f->tcp_port);
        o.device = f->device;
        o.port = static_cast<std::uint8_t>(f->port);
        o.gid_index = f->gid_index;
        o.op = value_of(op_names, f->op);
        o.transport = qp::parse_qp_type(f->transport);
        o.sizes = perf::parse_sizes(f->sizes);
        o.iterations = f->iterations;
        o.duration_s = f->duration;
        o.warmup = f->warmup;
        o.inline_mode = value_of(inline_names, f->inline_mode);
        if (f->mtu)
            o.mtu = decode::mtu_from_bytes(*f->mtu);  // CLI11 admits only valid sizes
        o.timeout = std::chrono::milliseconds(static_cast<long>(f->timeout_s * 1000));
        o.cpu = f->cpu;
        o.histogram_rows = f->histogram ? 20 : 0;
        // A server names the test parameters it was given, so a client that
        // asks for something else is told which ones differ.
        for (const char* name : {"--op", "--transport", "--size", "--iterations", "--duration", "--warmup",
                                 "--inline", "--mtu"})
            if (cmd->count(name) > 0)
                o.server_explicit.emplace_back(name + 2);
        perf::check_combination(o);
        net::install_interrupt_handlers();  // Ctrl-C ends any wait with a message

        const bool show_progress = ::isatty(STDERR_FILENO) && !global.json && o.sizes.size() > 1;
        const auto report = perf::run_ping_pong(o, [&](const report::SizeResult& s) {
            if (show_progress)
                global.info(fmt_out::progress_line(s));  // none under --quiet
        });
        emit(global, "ping-pong", [&](fmt_out::Printer& p) { fmt_out::render_ping_pong(report, p); });
        if (report.aborted)
            throw ReportedFailure{exit_timeout};
    });
}

}  // namespace qps::cli
