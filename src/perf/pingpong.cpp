#include "src/perf/pingpong.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/net/exchange.hpp"
#include "src/perf/sizes.hpp"
#include "src/perf/clock.hpp"

namespace qps::perf {

namespace {

using Json = nlohmann::ordered_json;

struct OpName {
    Op op;
    std::string_view name;
};
constexpr std::array<OpName, 3> op_names{{{Op::send, "send"}, {Op::write, "write"}, {Op::read, "read"}}};

struct TransportName {
    ibv_qp_type type;
    std::string_view name;
};
constexpr std::array<TransportName, 3> transport_names{{{IBV_QPT_RC, "rc"}, {IBV_QPT_UC, "uc"}, {IBV_QPT_UD, "ud"}}};

// Which op runs on which transport (IB spec: UC has no RDMA read, UD only sends).
struct Allowed {
    Op op;
    ibv_qp_type type;
};
constexpr std::array<Allowed, 6> allowed{{{Op::send, IBV_QPT_RC},
                                          {Op::write, IBV_QPT_RC},
                                          {Op::read, IBV_QPT_RC},
                                          {Op::send, IBV_QPT_UC},
                                          {Op::write, IBV_QPT_UC},
                                          {Op::send, IBV_QPT_UD}}};

std::string_view op_name(Op op)
{
    return std::find_if(op_names.begin(), op_names.end(), [op](const auto& e) { return e.op == op; })->name;
}
std::string_view transport_name(ibv_qp_type t)
{
    return std::find_if(transport_names.begin(), transport_names.end(), [t](const auto& e) { return e.type == t; })
        ->name;
}

Op op_from(std::string_view name)
{
    for (const auto& e : op_names)
        if (e.name == name)
            return e.op;
    throw OperationError(fmt::format("the peer asked for op '{}': this side knows send, write, read", name));
}
ibv_qp_type transport_from(std::string_view name)
{
    for (const auto& e : transport_names)
        if (e.name == name)
            return e.type;
    throw OperationError(fmt::format("the peer asked for transport '{}': this side knows rc, uc, ud", name));
}

// The test parameters as they travel (flat: the exchange carries scalars):
// the client's rule, the server adopts them.
Json params_json(const PingPongOptions& o)
{
    const std::string sizes = fmt::format("{}", fmt::join(o.sizes, ","));
    return Json{{"op", op_name(o.op)},
                {"transport", transport_name(o.transport)},
                {"size", sizes},
                {"iterations", o.iterations},
                {"duration", o.duration_s.value_or(0.0)},
                {"warmup", o.warmup},
                {"inline", o.inline_mode == InlineMode::automatic ? "auto" : o.inline_mode == InlineMode::on ? "on" : "off"},
                {"mtu", o.mtu ? 128u << *o.mtu : 0u}};
}

void adopt(PingPongOptions& o, const Json& p)
{
    try {
        o.op = op_from(p.at("op").get<std::string>());
        o.transport = transport_from(p.at("transport").get<std::string>());
        o.sizes = parse_sizes(p.at("size").get<std::string>());
        o.iterations = p.at("iterations").get<std::uint64_t>();
        o.warmup = p.at("warmup").get<std::uint64_t>();
        const std::string inl = p.at("inline").get<std::string>();
        o.inline_mode = inl == "on" ? InlineMode::on : inl == "off" ? InlineMode::off : InlineMode::automatic;
        const auto mtu = p.at("mtu").get<std::uint32_t>();
        o.mtu = decode::mtu_from_bytes(mtu);
        if (mtu && !o.mtu)
            throw OperationError(fmt::format("the client asked for an MTU of {} bytes: valid are 256..4096", mtu));
        const double duration = p.at("duration").get<double>();
        o.duration_s = duration > 0 ? std::optional<double>(duration) : std::nullopt;
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the client's test parameters are malformed: {}", e.what()));
    } catch (const UsageError& e) {
        throw OperationError(fmt::format("the client's test parameters are invalid: {}", e.what()));
    }
    if (o.sizes.size() > 64)
        throw OperationError("the client's test asks for more than 64 sizes");
    check_combination(o);
}

verbs::RemoteEndpoint remote_from(const net::Endpoint& e)
{
    verbs::RemoteEndpoint r;
    r.qpn = e.qpn;
    r.psn = e.psn;
    r.lid = e.lid;
    r.gid = e.gid;
    r.rkey = e.rkey;
    r.addr = e.addr;
    r.size = e.size;
    r.mtu = decode::mtu_from_bytes(e.mtu).value_or(IBV_MTU_256);  // the exchange admits only valid MTUs
    return r;
}

net::Endpoint endpoint_from(const verbs::LocalEndpoint& l)
{
    net::Endpoint e{};
    e.qpn = l.qpn;
    e.psn = l.psn;
    e.lid = l.lid;
    e.gid = l.gid;
    e.gid_index = l.gid_index;
    e.rkey = l.rkey;
    e.addr = l.addr;
    e.size = l.size;
    e.mtu = 128u << l.mtu;
    return e;
}

void pin(const std::optional<int>& cpu)
{
    if (!cpu)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*cpu, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0)
        throw SystemError(fmt::format("sched_setaffinity(cpu {})", *cpu), errno, "is that CPU online and allowed?");
}

}  // namespace

void check_combination(const PingPongOptions& o)
{
    const bool ok = std::any_of(allowed.begin(), allowed.end(),
                                [&](const Allowed& a) { return a.op == o.op && a.type == o.transport; });
    if (!ok)
        throw UsageError(fmt::format("--op {} is not possible on --transport {}: RC does send, write, read; UC "
                                     "send, write; UD send only",
                                     op_name(o.op), transport_name(o.transport)));
    if (o.op == Op::write)
        for (auto s : o.sizes)
            if (s < 1)
                throw UsageError("--op write needs sizes of at least 1 byte");
}

report::PingPongReport run_ping_pong(const PingPongOptions& given,
                                     const std::function<void(const report::SizeResult&)>& progress)
{
    PingPongOptions o = given;
    const bool client = !o.host.empty();
    pin(o.cpu);
    const Clock clock = Clock::calibrate();

    // 1. Connect and agree on the test: the server adopts the client's
    //    parameters, naming any it was given that differ.
    net::Channel channel = client ? net::Channel::connect(o.host, o.tcp_port, o.timeout)
                                  : net::Channel::accept_one(o.tcp_port, std::chrono::milliseconds(0));
    net::Exchange ex(std::move(channel), client ? net::Role::client : net::Role::server, "ping-pong", o.timeout);
    ex.hello();
    const Json theirs = ex.params(params_json(o), client ? std::vector<std::string>{} : o.server_explicit);
    if (!client)
        adopt(o, theirs);

    // 2. Resources sized for the largest message, then the endpoints.
    const std::uint32_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    verbs::TestSetup setup;
    setup.device = o.device;
    setup.port = o.port;
    setup.gid_index = o.gid_index;
    setup.type = o.transport;
    setup.buffer_bytes = largest;
    setup.mtu = o.mtu;
    setup.max_inline = o.inline_mode == InlineMode::off ? 0 : std::min<std::uint32_t>(largest, 1024);
    verbs::TestResources res(setup);
    if (o.transport == IBV_QPT_UD && largest > (128u << res.local().mtu))
        throw UsageError(fmt::format("UD messages must fit the path MTU: size {} > {} bytes", largest,
                                     128u << res.local().mtu));
    res.connect(remote_from(ex.endpoints(endpoint_from(res.local()))));
    if (o.op == Op::send)
        prepost_receives(res, largest);

    report::PingPongReport rep;
    rep.role = client ? "client" : "server";
    rep.peer = ex.channel().peer();
    rep.op = op_name(o.op);
    rep.transport = transport_name(o.transport);
    rep.one_way = o.op != Op::read;
    rep.device = res.device_name();
    rep.port = o.port;
    rep.gid_index = res.local().gid_index;
    rep.gid_why = res.gid().why;
    rep.mtu_bytes = 128u << std::min(res.local().mtu, res.remote().mtu);
    rep.inline_max = res.granted_inline();
    rep.iterations = o.iterations;
    rep.warmup = o.warmup;
    rep.duration_s = o.duration_s;
    rep.clock_source = clock.info().source;
    rep.clock_why = clock.info().why;
    rep.clock_ticks_per_ns = clock.info().ticks_per_ns;
    rep.clock_calibration_ms = clock.info().calibration_ms;
    rep.clock_calibration_error_ppm = clock.info().calibration_error_ppm;

    // 3. One run per size, between barriers; the server reports back.
    for (const std::uint32_t size : o.sizes) {
        LatencyRun run;
        run.op = o.op;
        run.size = size;
        run.iterations = o.iterations;
        if (o.duration_s)
            run.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(*o.duration_s * 1e9));
        run.warmup = o.warmup;
        run.use_inline = o.inline_mode != InlineMode::off && size <= res.granted_inline() && o.op != Op::read;
        rep.inline_used = rep.inline_used || run.use_inline;
        run.silence_limit = o.timeout;
        run.oob_fd = ex.channel().fd();

        ex.ready();
        const LatencyResult r = run_latency(res, client ? Role::client : Role::server, run, clock);
        report::SizeResult sr;
        sr.local = report::summarize(size, r.histogram, r.measured_seconds, r.aborted, r.abort_reason,
                                     o.histogram_rows);
        try {
            sr.peer = report::latency_stats_from_json(
                ex.results(report::to_json(sr.local), r.aborted ? std::chrono::milliseconds(1000) : o.timeout));
        } catch (const std::exception&) {
            if (!r.aborted)
                throw;
            // The peer is gone: keep what this side measured.
        }
        rep.sizes.push_back(sr);
        if (progress)
            progress(sr);
        if (r.aborted) {
            rep.aborted = true;
            rep.abort_reason = r.abort_reason;
            break;
        }
    }
    return rep;
}

}  // namespace qps::perf
