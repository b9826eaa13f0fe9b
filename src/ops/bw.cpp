#include "src/ops/bw.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <memory>

#include "src/error.hpp"
#include "src/json.hpp"
#include "src/net/exchange.hpp"
#include "src/ops/side_checks.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/bw/worker.hpp"
#include "src/perf/clock.hpp"

namespace qps::perf {

namespace {

constexpr std::uint32_t max_qps = 64;

std::uint32_t effective_cq_mod(const BwOptions& o) { return o.cq_mod ? o.cq_mod : std::min(64u, o.tx_depth); }

Json params_json(const BwOptions& o)
{
    Json p = common_params(o);
    p["tx_depth"] = o.tx_depth;
    p["rx_depth"] = o.rx_depth;
    p["post_list"] = o.post_list;
    p["cq_mod"] = effective_cq_mod(o);
    p["qps"] = o.qps;
    p["bidir"] = o.bidir;
    p["window_ms"] = o.window_ms;
    return p;
}

void adopt(BwOptions& o, const Json& p)
{
    adopt_common(o, p);
    try {
        o.tx_depth = p.at("tx_depth").get<std::uint32_t>();
        o.rx_depth = p.at("rx_depth").get<std::uint32_t>();
        o.post_list = p.at("post_list").get<std::uint32_t>();
        o.cq_mod = p.at("cq_mod").get<std::uint32_t>();
        o.qps = p.at("qps").get<std::uint32_t>();
        o.bidir = p.at("bidir").get<bool>();
        o.window_ms = p.at("window_ms").get<double>();
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the client's test parameters are malformed: {}", e.what()));
    }
    try {
        check_bw_options(o);
    } catch (const UsageError& e) {
        throw OperationError(fmt::format("the client's test parameters are invalid: {}", e.what()));
    }
}

// Which buffers a size's data goes through on this side.
struct Roles {
    bool sends, receives, target;  // target: the peer writes or reads this side's receive half
};

Roles roles_of(const BwOptions& o, bool client)
{
    const bool sends = client || o.bidir;
    const bool peer_sends = !client || o.bidir;
    return {sends, o.op == Op::send && peer_sends, o.op != Op::send && peer_sends};
}

// Before the barrier: the pattern where data starts, zeros where it lands.
void prepare_buffers(const std::vector<std::unique_ptr<verbs::TestResources>>& qps, Op op, const Roles& roles,
                     std::uint32_t size)
{
    for (const auto& res : qps) {
        if (op == Op::read) {
            if (roles.target)
                fill_pattern(res->recv_buf(), size);
            if (roles.sends)
                std::memset(res->send_buf(), 0, size);
        } else {
            if (roles.sends)
                fill_pattern(res->send_buf(), size);
            if (roles.target || roles.receives)
                std::memset(res->recv_buf(), 0, res->local().size);
        }
    }
}

// After the run: what arrived on this side against the pattern.
std::pair<std::string, bool> verify(const std::vector<std::unique_ptr<verbs::TestResources>>& qps, Op op,
                                    const Roles& roles, std::uint32_t size)
{
    const bool destination = op == Op::read ? roles.sends : roles.target || roles.receives;
    if (!destination)
        return {"not checked: no data arrives on this side", false};
    if (size == 0)
        return {"not checked: 0-byte messages", false};
    for (const auto& res : qps) {
        const std::uint8_t* where = op == Op::read ? res->send_buf() : res->recv_buf();
        if (op == Op::send && res->type() == IBV_QPT_UD)
            where += verbs::ud_grh_bytes;
        if (auto bad = check_pattern(where, size))
            return {fmt::format("MISMATCH on QP {:#x}: {}", res->qp()->qp_num, *bad), true};
    }
    return {fmt::format("ok: {} bytes on {} QP{}", size, qps.size(), qps.size() == 1 ? "" : "s"), false};
}

}  // namespace

void check_bw_options(const BwOptions& o)
{
    check_op_transport(o.op, o.transport);
    if (o.op != Op::send)
        for (auto s : o.sizes)
            if (s < 1)
                throw UsageError(fmt::format("--op {} needs sizes of at least 1 byte", op_name(o.op)));
    if (o.tx_depth < 1 || o.tx_depth > 32768)
        throw UsageError(fmt::format("--tx-depth {} is out of range: valid are 1..32768", o.tx_depth));
    if (o.rx_depth < 1 || o.rx_depth > 32768)
        throw UsageError(fmt::format("--rx-depth {} is out of range: valid are 1..32768", o.rx_depth));
    if (o.post_list < 1 || o.post_list > o.tx_depth)
        throw UsageError(fmt::format("--post-list {} must be 1..--tx-depth ({})", o.post_list, o.tx_depth));
    if (o.cq_mod > o.tx_depth)
        throw UsageError(fmt::format("--cq-mod {} must be 1..--tx-depth ({}): one signalled WR must always be in "
                                     "the queue",
                                     o.cq_mod, o.tx_depth));
    if (o.qps < 1 || o.qps > max_qps)
        throw UsageError(fmt::format("--qps {} is out of range: valid are 1..{}", o.qps, max_qps));
    check_threads(o);
    if (!(o.window_ms >= 0.01 && o.window_ms <= 60000))
        throw UsageError(fmt::format("--window {} ms is out of range: valid are 0.01..60000", o.window_ms));
    report::rate_unit(o.unit);
}

report::BwReport run_bw(const BwOptions& given, const std::function<void(std::uint32_t, double, double)>& progress,
                        const std::function<void(const report::BwSizeResult&)>& size_done)
{
    BwOptions o = given;
    const bool client = !o.host.empty();
    // 0. Everything local first: a server checks before it listens.
    std::vector<int> cpus = check_side(o, o.qps * o.threads);
    pin_cpu(o.cpu);
    const Clock clock = Clock::calibrate();

    // 1. Connect and agree on the test.
    Json theirs;
    net::Exchange ex = open_exchange(o, "bw", params_json(o), theirs);
    if (!client) {
        adopt(o, theirs);
        cpus = check_side(o, o.qps * o.threads);  // the client's sizes, QPs and threads
    }
    const std::uint32_t cq_mod = effective_cq_mod(o);
    const Roles roles = roles_of(o, client);

    // 2. One set of resources per QP, sized for the largest message.
    const std::uint32_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    verbs::TestSetup setup = test_setup(o, largest);
    setup.send_depth = o.tx_depth;
    setup.recv_depth = roles.receives ? o.rx_depth : 1;
    // Thread t owns QPs t*qps .. (t+1)*qps-1, on both sides.
    std::vector<std::unique_ptr<verbs::TestResources>> qps;
    std::vector<WorkerPlan> plans(o.threads);
    for (std::uint32_t t = 0; t < o.threads; ++t) {
        plans[t].cpu = t < cpus.size() ? cpus[t] : -1;
        for (std::uint32_t q = 0; q < o.qps; ++q) {
            qps.push_back(std::make_unique<verbs::TestResources>(setup));
            plans[t].lanes.push_back(qps.back().get());
        }
    }
    const verbs::TestResources& first = *qps.front();
    check_ud_fits(o, first, largest);
    for (auto& res : qps)
        res->connect(remote_from(ex.endpoints(endpoint_from(res->local()))));
    if (roles.receives)
        for (auto& res : qps)
            post_initial_receives(*res, o.rx_depth);

    report::BwReport rep;
    fill_header(rep, o, ex, first, clock);
    rep.bidir = o.bidir;
    rep.qps = o.qps;
    rep.threads = o.threads;
    rep.cpus = cpus;
    if (rep.cpus.empty() && o.cpu)
        rep.cpus = {*o.cpu};
    rep.tx_depth = o.tx_depth;
    rep.rx_depth = o.rx_depth;
    rep.post_list = o.post_list;
    rep.cq_mod = cq_mod;
    rep.window_ms = o.window_ms;
    rep.unit = o.unit;

    // 3. One run per size, between barriers; the server reports back.
    for (const std::uint32_t size : o.sizes) {
        BwRun run;
        run.op = o.op;
        run.size = size;
        run.iterations = o.iterations;
        if (o.duration_s)
            run.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(*o.duration_s * 1e9));
        run.warmup = o.warmup;
        run.tx_depth = o.tx_depth;
        run.rx_depth = o.rx_depth;
        run.post_list = o.post_list;
        run.cq_mod = cq_mod;
        run.use_inline = o.inline_mode != InlineMode::off && size <= first.granted_inline() && o.op != Op::read;
        rep.inline_used = rep.inline_used || run.use_inline;
        run.sends = roles.sends;
        run.receives = roles.receives;
        run.client = client;
        run.window = std::chrono::nanoseconds(static_cast<std::int64_t>(o.window_ms * 1e6));
        run.silence_limit = o.timeout;
        if (client)
            run.on_sent = [&ex] { ex.announce_ready(); };
        if (progress)
            run.progress = [&progress, size](double s, double rate) { progress(size, s, rate); };

        prepare_buffers(qps, o.op, roles, size);
        if (const auto why = barrier_failure(ex); !why.empty()) {
            rep.aborted = true;  // the sizes measured so far are the report
            rep.abort_reason = why;
            break;
        }
        net::PeerWatch peer(ex.channel().fd(), ex.channel().peer(), o.timeout);
        CrewResult crew = run_crew(plans, run, clock, peer);
        BwResult& r = crew.total;
        // The end barrier: both sides are done (the client announced already).
        if (r.aborted && !r.peer_ended_early) {
            ex.abort(fmt::format("{} side ended the run: {}", rep.role, r.abort_reason));
        } else {
            try {
                if (client)
                    ex.await_ready(o.timeout);
                else
                    ex.ready(o.timeout);
            } catch (const std::exception& e) {
                r.aborted = true;
                r.abort_reason = e.what();
            }
        }

        report::BwSizeResult sr;
        sr.local.size = size;
        sr.local.tx = r.tx;
        sr.local.rx = r.rx;
        sr.local.cpu_user_s = r.cpu.user_s;
        sr.local.cpu_sys_s = r.cpu.sys_s;
        sr.local.cpu_wall_s = r.cpu.wall_s;
        sr.local.cpu_percent = r.cpu.percent();
        sr.local.threads = std::move(crew.threads);
        sr.local.aborted = r.aborted;
        sr.local.abort_reason = r.abort_reason;
        if (r.aborted) {
            sr.local.verified = "not checked: the run ended early";
        } else {
            std::tie(sr.local.verified, sr.local.verify_failed) = verify(qps, o.op, roles, size);
            try {
                sr.peer = report::side_stats_from_json(ex.results(report::to_json(sr.local), o.timeout));
            } catch (const TimeoutError& e) {
                r.aborted = true;  // this side's figures stand; the peer's never came
                r.abort_reason = e.what();
            }
        }
        rep.verify_failed = rep.verify_failed || sr.local.verify_failed || (sr.peer && sr.peer->verify_failed);
        rep.sizes.push_back(sr);
        if (size_done)
            size_done(sr);
        if (r.aborted) {
            rep.aborted = true;
            rep.abort_reason = r.abort_reason;
            break;
        }
    }
    return rep;
}

}  // namespace qps::perf
