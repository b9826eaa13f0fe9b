#include "commands/link_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tuple>

#include "commands/option_values.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"
#include "src/error.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/perf/sizes.hpp"
#include "src/qp/options.hpp"

namespace qps::commands {

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

void add_knob_options(CLI::App* cmd, KnobFlags& f, KnobSet set)
{
    auto* tclass = cmd->add_option("--tclass", f.tclass,
                                   "Traffic class of what this side sends, DSCP << 2 | ECN, 0-255 (RoCE v2: the IP "
                                   "TOS; set through rdma_cm's TOS option when rdma_cm connects)")
                       ->check(CLI::Range(0u, decode::max_traffic_class));
    auto* dscp = cmd->add_option("--dscp", f.dscp, "The same as --tclass DSCP<<2 (ECN 0)")->check(CLI::Range(0u, 63u));
    tclass->excludes(dscp);
    cmd->add_option("--sl", f.sl, "Service level 0-15 of the QPs' address (default 0)")
        ->check(CLI::Range(0u, decode::max_sl));
    cmd->add_option("--flow-label", f.flow_label, "The GRH's flow label, 20 bits (default 0)")
        ->check(CLI::Range(0u, decode::max_flow_label));
    cmd->add_option("--pkey-index", f.pkey_index,
                    "P_Key table index of the QPs (default 0); checked against the port's table before any network "
                    "step")
        ->check(CLI::Range(0u, decode::max_pkey_index));
    cmd->add_option("--qp-timeout", f.qp_timeout,
                    "The RC QPs' local ACK timeout: code 0-31 (4.096 us x 2^code, 0 = infinite) or a duration "
                    "(e.g. 67ms); default 14 (67.109 ms)")
        ->type_name("CODE|DURATION");
    cmd->add_option("--retry-cnt", f.retry_cnt,
                    "The RC QPs' transport retries 0-7 (default 7, which rxe takes as forever): fewer end a run "
                    "whose packets are lost in RETRY_EXC_ERR")
        ->check(CLI::Range(0u, decode::max_retry));
    if (set == KnobSet::no_rnr)
        return;
    cmd->add_option("--rnr-retry", f.rnr_retry, "RC: RNR retries 0-7 (default 7 = infinite)")
        ->check(CLI::Range(0u, decode::max_retry));
    cmd->add_option("--min-rnr-timer", f.min_rnr_timer,
                    "RC: the RNR NAK timer this side's receiver asks for: code 0-31 or a duration (e.g. 1.28ms); "
                    "default 12 (0.64 ms)")
        ->type_name("CODE|DURATION");
}

void check_beside_cm(const BesideCm& b)
{
    if (b.transport != IBV_QPT_RC)
        throw UsageError(fmt::format("--cm connects RC QPs (rdma_cm's RDMA_PS_TCP): --transport {} is not possible "
                                     "with it",
                                     b.transport_word));
    if (b.gid_index)
        throw UsageError(fmt::format("-x {}: with --cm, rdma_cm picks the GID of {}", *b.gid_index, b.gid_hint));
    if (b.mtu)
        throw UsageError(fmt::format("-m {}: with --cm, rdma_cm sets the path MTU from the route (the netdev's MTU); "
                                     "change that instead",
                                     *b.mtu));
    const KnobFlags& f = b.knobs;
    for (const auto& [given, name, why] :
         {std::tuple{f.sl.has_value(), "--sl", "the path's (RoCE: the priority of the TOS; give --tclass)"},
          std::tuple{f.flow_label.has_value(), "--flow-label", "the path's"},
          std::tuple{f.pkey_index.has_value(), "--pkey-index", "the P_Key of the address's netdev"}})
        if (given)
            throw UsageError(fmt::format("{}: with --cm, rdma_cm sets it on the QP from what it resolved ({}); "
                                         "leave it out, or connect by hand",
                                         name, why));
}

verbs::QpKnobs to_knobs(const KnobFlags& f, ibv_qp_type transport, std::string_view transport_word)
{
    verbs::QpKnobs k;
    if (!f.qp_timeout.empty()) {
        const decode::ParsedCode code = decode::parse_timeout(f.qp_timeout);
        if (!code.ok)
            throw UsageError(fmt::format("--qp-timeout: {}", code.error));
        k.ack_timeout = code.code;
    }
    if (f.retry_cnt)
        k.retry_cnt = static_cast<std::uint8_t>(*f.retry_cnt);
    if ((!f.qp_timeout.empty() || f.retry_cnt) && transport != IBV_QPT_RC)
        throw UsageError(fmt::format("--qp-timeout and --retry-cnt are the RC transport's (ACKs and retries): "
                                     "--transport {} has none",
                                     transport_word));
    if (f.sl)
        k.sl = static_cast<std::uint8_t>(*f.sl);
    if (f.flow_label)
        k.flow_label = *f.flow_label;
    if (f.pkey_index)
        k.pkey_index = static_cast<std::uint16_t>(*f.pkey_index);
    if (f.rnr_retry)
        k.rnr_retry = static_cast<std::uint8_t>(*f.rnr_retry);
    if (!f.min_rnr_timer.empty()) {
        const decode::ParsedCode code = decode::parse_rnr_timer(f.min_rnr_timer);
        if (!code.ok)
            throw UsageError(fmt::format("--min-rnr-timer: {}", code.error));
        k.min_rnr_timer = code.code;
    }
    if ((f.rnr_retry || !f.min_rnr_timer.empty()) && transport != IBV_QPT_RC)
        throw UsageError(fmt::format("--rnr-retry and --min-rnr-timer are the RC transport's (RNR NAKs): "
                                     "--transport {} has none",
                                     transport_word));
    if (f.tclass)
        k.traffic_class = static_cast<std::uint8_t>(*f.tclass);
    else if (f.dscp)
        k.traffic_class = static_cast<std::uint8_t>(decode::traffic_class_of(static_cast<int>(*f.dscp), 0));
    return k;
}

std::vector<std::string> knob_names_given(const CLI::App* cmd)
{
    std::vector<std::string> names;
    for (const char* name : {"--qp-timeout", "--retry-cnt", "--tclass", "--dscp", "--sl", "--flow-label",
                             "--pkey-index", "--rnr-retry", "--min-rnr-timer"})
        if (cmd->get_option_no_throw(name) && cmd->count(name) > 0)
            names.emplace_back(std::string_view(name) == "--dscp" ? "tclass" : name + 2);
    return names;
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
    cmd->add_option("--op", f.op,
                    fmt::format("send, write, read, or the 8-byte atomics fadd (fetch-and-add) and cas "
                                "(compare-and-swap), RC only (default {})",
                                d.op))
        ->transform(one_of(perf::op_words()));
    cmd->add_option("--transport", f.transport, "rc, uc, ud or xrc (UC: send, write; UD: send; XRC: needs a "
                                                "device with XRC, which rxe and siw lack)")
        ->transform(one_of(decode::link_qp_type_words()));
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
    add_knob_options(cmd, f.knobs);
    cmd->add_flag("--cm", f.cm,
                  "Connect the QPs through rdma_cm (RDMA_PS_TCP, RC), the way NVMe-oF, iSER and MPI's rdmacm do: "
                  "rdma_cm picks the device, GID and path; both sides must give it");
    cmd->add_option("--cm-port", f.cm_port, "With --cm: the rdma_cm port (default: the TCP port + 1, 18616)")
        ->check(CLI::Range(1u, 65535u));
    cmd->add_option("--bind", f.bind,
                    "Source address (numeric): the server listens on it, the client connects from it; by hand the "
                    "QPs' source GID is the one holding it, with --cm rdma_cm's (default: any; the route's)")
        ->type_name(value_type::host);
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
    o.device_given = !f.device.empty();
    o.port = static_cast<std::uint8_t>(f.port);
    o.gid_index = f.gid_index;
    o.op = perf::op_from(f.op);  // one_of admitted only known words
    const auto transport = decode::link_qp_type(f.transport);  // the option's transform admits only these
    if (!transport)
        throw UsageError(fmt::format("--transport '{}': valid are {}", f.transport,
                                     fmt::join(decode::link_qp_type_words(), ", ")));
    o.transport = *transport;
    o.sizes = perf::parse_sizes(f.sizes);
    if (perf::is_atomic(o.op) && cmd->count("--size") == 0)
        o.sizes = {perf::atomic_bytes};  // the operand
    o.iterations = f.iterations;
    o.duration_s = f.duration;
    o.warmup = f.warmup;
    o.inline_mode = perf::inline_from(f.inline_mode);
    if (f.mtu)
        o.mtu = decode::mtu_from_bytes(*f.mtu);  // CLI11 admits only valid sizes
    o.timeout = std::chrono::milliseconds(static_cast<long>(f.timeout_s * 1000));
    o.cm = f.cm;
    o.bind = f.bind;
    if (f.cm_port && !f.cm)
        throw UsageError(fmt::format("--cm-port {} is rdma_cm's port: give --cm too", *f.cm_port));
    o.cm_port = static_cast<std::uint16_t>(f.cm_port ? *f.cm_port : (f.tcp_port % 65535) + 1);
    if (f.cm) {
        BesideCm b(f.knobs);
        b.transport = o.transport;
        b.transport_word = f.transport;
        b.gid_index = f.gid_index;
        b.gid_hint = "the source address; choose the address with --bind instead";
        b.mtu = f.mtu;
        check_beside_cm(b);
    }
    o.knobs = to_knobs(f.knobs, o.transport, f.transport);
    o.traffic_class_given = f.knobs.tclass_given();
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
    std::vector<const char*> names{"--op",     "--transport", "--size", "--iterations", "--duration",
                                   "--warmup", "--inline",    "--mtu",  "--threads"};
    names.insert(names.end(), extra.begin(), extra.end());
    for (const char* name : names)
        if (cmd->count(name) > 0)
            o.server_explicit.emplace_back(name + 2);
    for (auto& name : knob_names_given(cmd))
        o.server_explicit.push_back(std::move(name));
}

}  // namespace qps::commands
