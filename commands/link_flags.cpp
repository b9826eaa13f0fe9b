#include "commands/link_flags.hpp"

#include <fmt/format.h>

#include "commands/option_values.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/perf/sizes.hpp"
#include "src/qp/options.hpp"

namespace qps::cli {

void add_port_options(CLI::App* cmd, unsigned& port, std::optional<unsigned>& gid_index)
{
    cmd->add_option("-i,--ib-port", port, "Device port")->check(CLI::Range(1u, 255u))->type_name(value_type::port);
    cmd->add_option("-x,--gid-index", gid_index,
                    "GID index (default: the best: RoCE v2 with an IPv4 address, then RoCE v2, RoCE v1, IB)");
}

void add_tcp_port_option(CLI::App* cmd, unsigned& tcp_port)
{
    cmd->add_option("-p,--tcp-port", tcp_port, "TCP port of the out-of-band exchange (default 18615)")
        ->check(CLI::Range(1u, 65535u));
}

void add_link_options(CLI::App* cmd, LinkFlags& f, const LinkDefaults& d)
{
    f.op = d.op;
    f.sizes = d.sizes;
    f.iterations = d.iterations;
    f.warmup = d.warmup;
    cmd->add_option("host", f.host, "The server to connect to (name or address); none: serve one test")
        ->type_name(value_type::host);
    add_device_option(cmd, f.device, DeviceUse::choose);
    add_port_options(cmd, f.port, f.gid_index);
    cmd->add_option("--op", f.op, fmt::format("send, write or read (default {})", d.op))
        ->transform(one_of(perf::op_words()));
    cmd->add_option("--transport", f.transport, "rc, uc or ud (UC: send, write; UD: send)")
        ->transform(one_of(qp::qp_type_words()));
    cmd->add_option("-s,--size", f.sizes,
                    fmt::format("Bytes: 64, a list 64,4096, or a doubling sweep 2:8M (default {})", d.sizes));
    auto* n = cmd->add_option("-n,--iterations", f.iterations,
                              fmt::format("Measured {} per size (default {})",
                                          std::string_view(d.warmup_what) == "iterations" ? "iterations" : "messages per QP",
                                          d.iterations))
                  ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    auto* dur = cmd->add_option("-D,--duration", f.duration, "Measure each size for this many seconds instead")
                    ->check(CLI::Range(0.001, 86400.0));
    n->excludes(dur);
    cmd->add_option("-w,--warmup", f.warmup, fmt::format("{} before measuring (default {})",
                                                         std::string_view(d.warmup_what) == "iterations"
                                                             ? "Iterations"
                                                             : "Messages per QP",
                                                         d.warmup));
    cmd->add_option("--inline", f.inline_mode, "auto (when the size fits the device's inline limit), on, off")
        ->transform(one_of(perf::inline_words()));
    cmd->add_option("-m,--mtu", f.mtu, "Path MTU in bytes (default: the port's active MTU)")
        ->transform(one_of(qp::mtu_words()));
    add_tcp_port_option(cmd, f.tcp_port);
    cmd->add_option("-t,--timeout", f.timeout_s, "Seconds to wait for the peer: to connect, at each step, for "
                                                 "any completion, and for its heartbeat during a run (a peer "
                                                 "stopped or hung that long ends the run); then exit 3 with what "
                                                 "was measured")
        ->check(CLI::Range(0.1, 86400.0));
    cmd->add_option("--qp-timeout", f.qp_timeout,
                    "The RC QPs' local ACK timeout: code 0-31 (4.096 us x 2^code, 0 = infinite) or a duration "
                    "(e.g. 67ms); default 14 (67.109 ms)")
        ->type_name("CODE|DURATION");
    cmd->add_option("--retry-cnt", f.retry_cnt,
                    "The RC QPs' transport retries 0-7 (default 7, which rxe takes as forever): fewer end a run "
                    "whose packets are lost in RETRY_EXC_ERR")
        ->check(CLI::Range(0u, 7u));
    cmd->add_option("-c,--cpu", f.cpu, "Pin this side to this CPU")->check(CLI::Range(0, 4095));
    cmd->add_option("--threads", f.threads,
                    fmt::format("Worker threads, each pinned to its own CPU with {}; one measurement, the total over "
                                "the common span and each thread's figures (default 1)",
                                d.thread_owns))
        ->check(CLI::Range(1u, perf::max_threads));
    cmd->add_option("--cpus", f.cpus,
                    "The threads' CPUs, one per thread, e.g. 2,3 or 4-7 (default: CPUs near the NIC first); sets "
                    "--threads to their count when it is not given");
}

void to_link_options(const CLI::App* cmd, const LinkFlags& f, perf::LinkOptions& o,
                     const std::vector<const char*>& extra)
{
    o.host = f.host;
    o.tcp_port = static_cast<std::uint16_t>(f.tcp_port);
    o.device = f.device;
    o.port = static_cast<std::uint8_t>(f.port);
    o.gid_index = f.gid_index;
    o.op = perf::op_from(f.op);  // one_of admitted only known words
    o.transport = qp::parse_qp_type(f.transport);
    o.sizes = perf::parse_sizes(f.sizes);
    o.iterations = f.iterations;
    o.duration_s = f.duration;
    o.warmup = f.warmup;
    o.inline_mode = perf::inline_from(f.inline_mode);
    if (f.mtu)
        o.mtu = decode::mtu_from_bytes(*f.mtu);  // CLI11 admits only valid sizes
    o.timeout = std::chrono::milliseconds(static_cast<long>(f.timeout_s * 1000));
    if (!f.qp_timeout.empty()) {
        const decode::ParsedCode code = decode::parse_timeout(f.qp_timeout);
        if (!code.ok)
            throw UsageError(fmt::format("--qp-timeout: {}", code.error));
        o.ack_timeout = code.code;
    }
    if (f.retry_cnt)
        o.retry_cnt = static_cast<std::uint8_t>(*f.retry_cnt);
    if ((!f.qp_timeout.empty() || f.retry_cnt) && o.transport != IBV_QPT_RC)
        throw UsageError(fmt::format("--qp-timeout and --retry-cnt are the RC transport's (ACKs and retries): "
                                     "--transport {} has none",
                                     f.transport));
    o.cpu = f.cpu;
    o.threads = f.threads;
    if (!f.cpus.empty()) {
        const auto cpus = kernel::parse_cpu_list(f.cpus);
        if (!cpus || cpus->empty())
            throw UsageError(fmt::format("--cpus '{}' is not a CPU list: give CPU numbers and ranges, e.g. 2,3 or 0-3,8",
                                         f.cpus));
        o.cpus = *cpus;
        if (cmd->count("--threads") == 0) {
            o.threads = static_cast<std::uint32_t>(o.cpus.size());
            o.server_explicit.emplace_back("threads");  // --cpus says how many
        }
    }
    perf::check_threads(o);
    std::vector<const char*> names{"--op", "--transport", "--size", "--iterations", "--duration", "--warmup",
                                   "--inline", "--mtu", "--threads", "--qp-timeout", "--retry-cnt"};
    names.insert(names.end(), extra.begin(), extra.end());
    for (const char* name : names)
        if (cmd->count(name) > 0)
            o.server_explicit.emplace_back(name + 2);
}

}  // namespace qps::cli
