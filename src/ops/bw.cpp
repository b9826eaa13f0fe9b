#include "src/ops/bw.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <memory>

#include "src/error.hpp"
#include "src/json.hpp"
#include "src/net/exchange.hpp"
#include "src/net/channel.hpp"
#include "src/net/heartbeat.hpp"
#include "src/ops/side_checks.hpp"
#include "src/ops/stall_evidence.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/bw/worker.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/link_connect.hpp"

namespace qps::ops {

namespace {

constexpr std::uint32_t max_qps = 64;

std::uint32_t effective_cq_mod(const BwOptions& o) { return o.cq_mod ? o.cq_mod : std::min(64u, o.tx_depth); }

Json params_json(const BwOptions& o)
{
    Json p = perf::common_params(o);
    p["tx_depth"] = o.tx_depth;
    p["rx_depth"] = o.rx_depth;
    p["post_list"] = o.post_list;
    p["cq_mod"] = effective_cq_mod(o);
    p["qps"] = o.qps;
    p["bidir"] = o.bidir;
    p["srq"] = o.srq;
    p["window_ms"] = o.window_ms;
    return p;
}

// The client's test, as this server runs it.
BwOptions adopted(const BwOptions& mine, const Json& p)
{
    BwOptions o = mine;
    perf::adopt_common(o, p);
    try {
        o.tx_depth = p.at("tx_depth").get<std::uint32_t>();
        o.rx_depth = p.at("rx_depth").get<std::uint32_t>();
        o.post_list = p.at("post_list").get<std::uint32_t>();
        o.cq_mod = p.at("cq_mod").get<std::uint32_t>();
        o.qps = p.at("qps").get<std::uint32_t>();
        o.bidir = p.at("bidir").get<bool>();
        o.window_ms = p.at("window_ms").get<double>();
        o.srq = p.value("srq", false);  // a client of before --srq sends none
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the client's test parameters are malformed: {}", e.what()));
    }
    try {
        check_bw_options(o);
    } catch (const UsageError& e) {
        throw OperationError(fmt::format("the client's test parameters are invalid: {}", e.what()));
    }
    return o;
}

std::uint32_t qps_of(const BwOptions& o) { return o.qps * o.threads; }

// Which buffers a size's data goes through on this side.
struct Roles {
    bool sends, receives, target;  // target: the peer writes or reads this side's receive half
};

Roles roles_of(const BwOptions& o, bool client)
{
    const bool sends = client || o.bidir;
    const bool peer_sends = !client || o.bidir;
    return {sends, o.op == perf::Op::send && peer_sends, o.op != perf::Op::send && peer_sends};
}

// Before the barrier: the pattern where data starts, zeros where it lands.
void prepare_buffers(const std::vector<std::unique_ptr<verbs::LinkResources>>& qps, perf::Op op, const Roles& roles,
                     std::uint32_t size)
{
    for (const auto& res : qps) {
        if (perf::is_atomic(op)) {  // the target's counter starts at 0; what comes back lands in the send half
            if (roles.target)
                std::memset(res->recv_buf(), 0, perf::atomic_bytes);
            if (roles.sends)
                std::memset(res->send_buf(), 0, perf::atomic_bytes);
        } else if (op == perf::Op::read) {
            if (roles.target)
                perf::fill_pattern(res->recv_buf(), size);
            if (roles.sends)
                std::memset(res->send_buf(), 0, size);
        } else {
            if (roles.sends)
                perf::fill_pattern(res->send_buf(), size);
            if (roles.target || roles.receives)
                std::memset(res->recv_buf(), 0, res->local().size);
        }
    }
}

// After the run: what arrived on this side against the pattern.
std::pair<std::string, bool> verify(const std::vector<std::unique_ptr<verbs::LinkResources>>& qps, perf::Op op,
                                    const Roles& roles, std::uint32_t size)
{
    if (perf::is_atomic(op))
        return {roles.sends ? "not checked yet: the peer's counters" : "not checked here: the peer compares these "
                                                                         "counters with its atomics",
                false};
    const bool destination = op == perf::Op::read ? roles.sends : roles.target || roles.receives;
    if (!destination)
        return {"not checked: no data arrives on this side", false};
    if (size == 0)
        return {"not checked: 0-byte messages", false};
    // --srq: every receive lands in the first QP's receive half.
    const bool shared = op == perf::Op::send && qps.front()->shared_receive();
    for (const auto& res : qps) {
        const std::uint8_t* where = op == perf::Op::read ? res->send_buf() : res->recv_buf();
        if (op == perf::Op::send && res->type() == IBV_QPT_UD)
            where += verbs::ud_grh_bytes;
        if (auto bad = perf::check_pattern(where, size))
            return {fmt::format("MISMATCH on QP {:#x}{}: {}", res->qp()->qp_num,
                                shared ? " (the receive buffer of the SRQ)" : "", *bad),
                    true};
        if (shared)
            break;
    }
    if (shared)
        return {fmt::format("ok: {} bytes through one SRQ serving {} QP{}", size, qps.size(), qps.size() == 1 ? "" : "s"),
                false};
    return {fmt::format("ok: {} bytes on {} QP{}", size, qps.size(), qps.size() == 1 ? "" : "s"), false};
}

// The atomics' check, on the side that posted them: fetch-and-add of 1
// leaves each target counter at the adds that completed (their sum over
// the QPs); compare-and-swap 0 -> 1 lets exactly one win on each QP.
std::pair<std::string, bool> check_counters(perf::Op op, std::optional<std::uint64_t> counter, std::uint64_t completed,
                                            std::size_t qps)
{
    if (!counter)
        return {"not checked: the peer sent no counters", false};
    const std::uint64_t expected = op == perf::Op::fadd ? completed : qps;
    const std::string what = op == perf::Op::fadd ? fmt::format("{} fetch-and-adds completed here", completed)
                                            : fmt::format("one compare-and-swap of 0 -> 1 won on each of {} QP{}", qps,
                                                          qps == 1 ? "" : "s");
    if (*counter != expected)
        return {fmt::format("MISMATCH: the peer's counters sum to {}, {} should leave {}", *counter, what, expected),
                true};
    return {fmt::format("ok: the peer's counters sum to {}: {}", *counter, what), false};
}

// This side's QPs, one set of resources each, and the threads that own
// them: thread t owns QPs t*qps .. (t+1)*qps-1, on both sides.
struct BwQps {
    std::vector<std::unique_ptr<verbs::LinkResources>> qps;
    std::vector<perf::WorkerPlan> plans;
};

// One set of resources per QP, sized for the largest message.
// One set of resources per QP, sized for the largest message, each
// connected to its peer's, with its receives posted on a side that receives.
BwQps connect_bw_qps(const BwOptions& o, const perf::LinkSide& decided, const Roles& roles, std::uint32_t largest,
                     net::Exchange& ex, perf::CmStart& cm)
{
    const std::vector<int>& cpus = decided.cpus;
    verbs::LinkSetup setup = perf::link_setup(o, decided, largest);
    setup.send_depth = o.tx_depth;
    setup.recv_depth = roles.receives ? o.rx_depth : 1;
    if (o.srq && roles.receives)  // one SRQ for all of the side's QPs
        setup.shared_receive = std::make_shared<verbs::SharedReceive>();
    BwQps side;
    side.qps = perf::connected_qps(o, setup, o.threads * o.qps, largest, ex, cm);
    side.plans.resize(o.threads);
    for (std::uint32_t t = 0; t < o.threads; ++t) {
        side.plans[t].cpu = t < cpus.size() ? cpus[t] : -1;
        for (std::uint32_t q = 0; q < o.qps; ++q)
            side.plans[t].lanes.push_back(side.qps[t * o.qps + q].get());
    }
    if (roles.receives)
        for (auto& res : side.qps) {
            perf::post_initial_receives(*res, o.rx_depth);
            if (res->shared_receive())
                break;  // the SRQ is filled once
        }
    return side;
}

// The queue parameters, as the run uses them and the report shows them.
template <class T>
void set_queue_params(T& t, const BwOptions& o)
{
    t.tx_depth = o.tx_depth;
    t.rx_depth = o.rx_depth;
    t.post_list = o.post_list;
    t.cq_mod = effective_cq_mod(o);
}

// The report before any size: the test, the sides, the bw parameters.
report::BwReport bw_report_header(const BwOptions& o, const perf::LinkSide& side, net::Exchange& ex,
                                  const verbs::LinkResources& first, const perf::Clock& clock)
{
    report::BwReport rep;
    perf::fill_header(rep, o, side, ex, first, clock);
    rep.bidir = o.bidir;
    rep.srq = o.srq;
    rep.qps = o.qps;
    set_queue_params(rep, o);
    rep.window_ms = o.window_ms;
    rep.unit = o.unit;
    return rep;
}

// One size's run as the loop takes it.
perf::BwRun size_run(const BwOptions& o, std::uint32_t size, const Roles& roles, bool client,
               const verbs::LinkResources& first, net::Exchange& ex,
               const std::function<void(std::uint32_t, double, double)>& progress)
{
    perf::BwRun run;
    perf::set_common_run(run, o, size, first);
    set_queue_params(run, o);
    run.sends = roles.sends;
    run.receives = roles.receives;
    run.client = client;
    run.window = std::chrono::nanoseconds(static_cast<std::int64_t>(o.window_ms * 1e6));
    if (client)
        run.on_sent = [&ex] { ex.announce_ready(); };
    if (progress)
        run.progress = [&progress, size](double s, double rate) { progress(size, s, rate); };
    return run;
}

// The end barrier: both sides are done (the client announced already). A
// side whose run ended early says why instead, with what its port counted
// since the run began, and the peer answers with its own counts: when they
// show where RoCE packets stopped while the exchange answered, both sides
// say so (`stalled_on_path`). Whichever timer ended the run (this side's
// stall, the heartbeat's silence, the peer's end signal), each side tells
// the peer with its evidence and waits for the peer's word by the
// heartbeat's rule (stall_evidence.hpp), as ping-pong does.
void end_barrier(net::Exchange& ex, perf::BwResult& r, bool client, const std::string& role, const BwOptions& o,
                 const PacketWatch& packets, bool& stalled_on_path)
{
    const std::string peer_host = net::host_of(ex.channel().peer());
    // This side's own failure stays first (a RETRY_EXC_ERR, a stall); the
    // peer's "gave up" gives way to where the packets stopped.
    const auto judge = [&](const Evidence& mine, const Json& theirs, bool own) {
        stalled_on_path = name_stall(r.abort_reason, own, peer_host, mine, theirs, o.tcp_port) || stalled_on_path;
    };
    if (r.aborted && r.peer_lost) {
        // Its own link first, whichever timer fired; the peer hears why with
        // this side's evidence (if it hears at all: it then names this
        // side's link, or where the packets stopped) and its answer, if its
        // TCP still delivers, is judged with this side's (name_lost_peer).
        const Evidence mine = packets.now();
        const auto theirs =
            ex.stalled(fmt::format("{} side ended the run: {}", role, r.abort_reason), to_json(mine), lost_peer_wait);
        stalled_on_path =
            name_lost_peer(r.abort_reason, peer_host, mine, theirs.value_or(Json::object()), o.tcp_port) ||
            stalled_on_path;
        return;
    }
    if (r.aborted && !r.peer_ended_early) {
        const Evidence mine = packets.now();
        const auto theirs =
            ex.stalled(fmt::format("{} side ended the run: {}", role, r.abort_reason), to_json(mine), o.timeout);
        judge(mine, theirs.value_or(Json::object()), true);  // without the peer's: this side's own alone
        return;
    }
    try {
        if (client)
            ex.await_ready(o.timeout, net::Wait::silence);
        else
            ex.ready(o.timeout, net::Wait::silence);
    } catch (const std::exception& e) {
        r.aborted = true;
        r.abort_reason = e.what();
        if (ex.peer_evidence()) {
            judge(packets.now(), *ex.peer_evidence(), false);
            return;
        }
        // The peer signalled its end and its word never came: what this side knows of it.
        if (r.peer_ended_early && dynamic_cast<const TimeoutError*>(&e))
            r.abort_reason =
                peer_word_missing(ex.channel().peer(), o.timeout, e.what(), net::tcp_state(ex.channel().fd()));
        // Lost, or gone without its evidence: this side's own link first.
        stalled_on_path = name_lost_peer(r.abort_reason, peer_host, packets.now()) || stalled_on_path;
    }
}

// A size's result: this side's figures and its check of the data, then
// the peer's figures (its absence ends the run; this side's stand).
report::BwSizeResult size_result(std::uint32_t size, perf::CrewResult& crew, const BwQps& side, const BwOptions& o,
                                 const Roles& roles, net::Exchange& ex, const PacketWatch& packets,
                                 bool& stalled_on_path)
{
    perf::BwResult& r = crew.total;
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
        return sr;
    }
    std::tie(sr.local.verified, sr.local.verify_failed) = verify(side.qps, o.op, roles, size);
    if (const verbs::SharedReceive* shared = side.qps.front()->shared_receive())
        sr.local.srq = report::SrqUse{shared->depth, shared->qps, r.qps_received};
    if (perf::is_atomic(o.op) && roles.target) {
        std::uint64_t sum = 0;
        for (const auto& res : side.qps) {
            std::uint64_t counter = 0;
            std::memcpy(&counter, res->recv_buf(), sizeof counter);
            sum += counter;
        }
        sr.local.atomic_counter = sum;
    }
    try {
        sr.peer = report::side_stats_from_json(ex.results(report::to_json(sr.local), o.timeout, net::Wait::silence));
        if (perf::is_atomic(o.op) && roles.sends)
            std::tie(sr.local.verified, sr.local.verify_failed) =
                check_counters(o.op, sr.peer->atomic_counter, r.sends_completed, side.qps.size());
    } catch (const TimeoutError& e) {
        r.aborted = true;  // this side's figures stand; the peer's never came
        r.abort_reason = e.what();
        stalled_on_path = name_lost_peer(r.abort_reason, net::host_of(ex.channel().peer()), packets.now()) ||
                          stalled_on_path;
    }
    return sr;
}

}  // namespace

void check_bw_options(const BwOptions& o)
{
    perf::check_op_transport(o.op, o.transport);
    perf::check_atomic_sizes(o);
    if (o.op != perf::Op::send)
        for (auto s : o.sizes)
            if (s < 1)
                throw UsageError(fmt::format("{} {} needs sizes of at least 1 byte", given(Given::op),
                                             perf::op_name(o.op)));
    if (o.tx_depth < 1 || o.tx_depth > 32768)
        throw UsageError(
            fmt::format("{} {} is out of range: valid are 1..32768", given(Given::send_wr), o.tx_depth));
    if (o.rx_depth < 1 || o.rx_depth > 32768)
        throw UsageError(
            fmt::format("{} {} is out of range: valid are 1..32768", given(Given::recv_wr), o.rx_depth));
    if (o.post_list < 1 || o.post_list > o.tx_depth)
        throw UsageError(fmt::format("{} {} must be 1..{} ({})", given(Given::post_list), o.post_list,
                                     given(Given::send_wr), o.tx_depth));
    if (o.cq_mod > o.tx_depth)
        throw UsageError(fmt::format("{} {} must be 1..{} ({}): one signalled WR must always be in the queue",
                                     given(Given::cq_mod), o.cq_mod, given(Given::send_wr), o.tx_depth));
    perf::check_srq(o.srq, o.op, o.transport);
    if (o.qps < 1 || o.qps > max_qps)
        throw UsageError(fmt::format("{} {} is out of range: valid are 1..{}", given(Given::qps), o.qps, max_qps));
    perf::check_threads(o);
    if (!(o.window_ms >= 0.01 && o.window_ms <= 60000))
        throw UsageError(
            fmt::format("{} {} ms is out of range: valid are 0.01..60000", given(Given::window), o.window_ms));
    report::rate_unit(o.unit);
}

report::BwReport run_bw(const BwOptions& given, const std::function<void(std::uint32_t, double, double)>& progress,
                        const std::function<void(const report::BwSizeResult&)>& size_done)
{
    // 0-1. Everything local first, then connect and agree on the test.
    LinkSession<BwOptions> session = open_session(given, TestTerms<BwOptions>{"bw", qps_of, params_json, adopted});
    const BwOptions& o = session.test;
    const perf::Clock& clock = session.clock;
    net::Exchange& ex = session.ex;
    const bool client = !o.host.empty();
    const Roles roles = roles_of(o, client);

    // 2. One set of resources per QP, sized for the largest message.
    const std::uint32_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    const BwQps side = connect_bw_qps(o, session.side, roles, largest, ex, session.cm);
    const verbs::LinkResources& first = *side.qps.front();
    report::BwReport rep = bw_report_header(o, session.side, ex, first, clock);
    perf::fill_cm_events(rep, session.cm);
    const PacketWatch packets(first.device_name(), session.side.port);
    ex.answer_stalls_with([&packets] { return to_json(packets.now()); });

    // 3. One run per size, between barriers; the server reports back.
    for (const std::uint32_t size : o.sizes) {
        const perf::BwRun run = size_run(o, size, roles, client, first, ex, progress);
        rep.inline_used = rep.inline_used || run.use_inline;
        prepare_buffers(side.qps, o.op, roles, size);
        if (const auto why = perf::barrier_failure(ex); !why.empty()) {
            rep.aborted = true;  // the sizes measured so far are the report
            rep.abort_reason = why;
            rep.stalled_on_path = name_lost_peer(rep.abort_reason, net::host_of(ex.channel().peer()), packets.now());
            break;
        }
        net::PeerWatch peer(ex.channel().fd(), ex.channel().peer(), o.timeout, ex.beat_limit());
        perf::CrewResult crew = perf::run_crew(side.plans, run, clock, peer);
        perf::BwResult& r = crew.total;
        end_barrier(ex, r, client, rep.role, o, packets, rep.stalled_on_path);
        const report::BwSizeResult sr = size_result(size, crew, side, o, roles, ex, packets, rep.stalled_on_path);
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

}  // namespace qps::ops
