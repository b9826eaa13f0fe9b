#include "src/ops/ping_pong.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/json.hpp"
#include "src/net/exchange.hpp"
#include "src/net/heartbeat.hpp"
#include "src/ops/side_checks.hpp"
#include "src/ops/stall_evidence.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/crew.hpp"
#include "src/perf/sizes.hpp"
#include "src/perf/link_common.hpp"
#include "src/perf/link_connect.hpp"
#include "src/perf/watchdog.hpp"

namespace qps::ops {

namespace {

// The client's test, as this server runs it.
PingPongOptions adopted(const PingPongOptions& mine, const Json& p)
{
    PingPongOptions o = mine;
    perf::adopt_common(o, p);
    o.srq = p.value("srq", false);  // a client of before --srq sends none
    check_combination(o);
    return o;
}

std::uint32_t pairs_of(const PingPongOptions& o) { return o.threads; }
Json params_of(const PingPongOptions& o)
{
    Json p = perf::common_params(o);
    p["srq"] = o.srq;
    return p;
}

// One side's figures of a size: with several pairs, all their samples
// together over the span from the first pair's start to the last one's
// end, then each pair's own.
report::LatencyStats side_figures(std::uint32_t size, const std::vector<perf::LatencyResult>& results,
                                  const std::vector<int>& cpus, const perf::Clock& clock, std::size_t histogram_rows)
{
    if (results.size() == 1) {
        const perf::LatencyResult& r = results.front();
        return report::summarize(size, r.histogram, r.period, r.measured_seconds, r.aborted, r.abort_reason,
                                 histogram_rows);
    }
    report::LatencyHistogram all, all_periods;
    bool aborted = false;
    std::string reason;
    std::uint64_t first = 0, last = 0;
    for (const perf::LatencyResult& r : results) {
        all.merge(r.histogram);
        all_periods.merge(r.period);
        if (r.aborted && !aborted) {
            aborted = true;
            reason = r.abort_reason;
        }
        if (r.end_tick > r.start_tick) {
            first = first == 0 ? r.start_tick : std::min(first, r.start_tick);
            last = std::max(last, r.end_tick);
        }
    }
    report::LatencyStats s =
        report::summarize(size, all, all_periods, last > first ? clock.to_ns(last - first) / 1e9 : 0.0, aborted, reason,
                          histogram_rows);
    for (std::size_t i = 0; i < results.size(); ++i) {
        const perf::LatencyResult& r = results[i];
        report::LatencyStats one = report::summarize(size, r.histogram, r.period, r.measured_seconds, r.aborted, r.abort_reason, 0);
        one.thread = static_cast<std::uint32_t>(i);
        one.cpu = i < cpus.size() ? cpus[i] : -1;
        s.threads.push_back(std::move(one));
    }
    return s;
}

// One QP per thread (pair t here talks to pair t of the peer), sized for
// the largest message, connected, with receives posted for the send op.
std::vector<std::unique_ptr<verbs::LinkResources>> connect_pairs(const PingPongOptions& o, const perf::LinkSide& side,
                                                                 net::Exchange& ex, std::uint32_t largest,
                                                                 perf::CmStart& cm)
{
    verbs::LinkSetup setup = perf::link_setup(o, side, largest);
    // RC: the extended verbs for the run's op, where the device has them
    // (the loops post with ibv_wr_* and poll with ibv_start_poll then).
    setup.send_ops = perf::send_ops_flags(o.op);
    if (o.srq) {  // one SRQ for every pair's QP: 64 receives posted for each
        setup.shared_receive = std::make_shared<verbs::SharedReceive>();
        setup.recv_depth = std::max(setup.recv_depth, 64 * o.threads);
    }
    auto pairs = perf::connected_qps(o, setup, o.threads, largest, ex, cm);
    if (o.op == perf::Op::send)
        for (auto& pair : pairs)
            perf::prepost_receives(*pair, largest);
    return pairs;
}

// The report before any size: the test, the sides, the clock.
report::PingPongReport ping_pong_header(const PingPongOptions& o, const perf::LinkSide& side, net::Exchange& ex,
                                        const verbs::LinkResources& res, const perf::Clock& clock)
{
    report::PingPongReport rep;
    perf::fill_header(rep, o, side, ex, res, clock);
    rep.one_way = !perf::one_sided(o.op);
    if (const verbs::SharedReceive* shared = res.shared_receive())
        rep.srq = report::SrqShared{shared->depth, shared->qps};
    rep.clock_why = clock.info().why;
    rep.clock_ticks_per_ns = clock.info().ticks_per_ns;
    rep.clock_calibration_ms = clock.info().calibration_ms;
    rep.clock_calibration_error_ppm = clock.info().calibration_error_ppm;
    return rep;
}

// Independent pairs at once (--threads N); each thread's loop watches the
// crew's end signal in place of the socket, the coordinator keeps the
// heartbeats going (src/perf/crew.hpp). One pair (no --threads) runs on
// this thread and its loop looks at the peer itself: with no second thread
// in the process, glibc leaves out the cancellation bracket it puts around
// every system call of a threaded one (rxe's doorbell write(): 31
// user-space instructions a message, README "Instructions per message").
// Returns why the peer was lost, or "".
std::string run_pairs(const std::vector<std::unique_ptr<verbs::LinkResources>>& pairs, const perf::LatencyRun& run,
                      perf::Role role, const std::vector<int>& cpus, net::Exchange& ex, std::chrono::milliseconds timeout,
                      const perf::Clock& clock, std::vector<perf::LatencyResult>& results)
{
    net::PeerWatch peer(ex.channel().fd(), ex.channel().peer(), timeout, ex.beat_limit());
    if (pairs.size() == 1) {
        const perf::PinnedHere pin(cpus.empty() ? -1 : cpus.front());
        perf::LatencyRun mine = run;
        mine.peer = &peer;
        results.front() = perf::run_latency(*pairs.front(), role, mine, clock);
        return results.front().peer_lost;
    }
    return perf::run_crew_threads(cpus.empty() ? std::vector<int>{-1} : cpus, peer,
                            [&](std::uint32_t i, const perf::CrewEnd& end) {
                                perf::LatencyRun mine = run;
                                mine.oob_fd = end.fd();
                                results[i] = perf::run_latency(*pairs[i], role, mine, clock);
                                if (results[i].completion_failed)
                                    end.raise();  // the other pairs end too
                            });
}

// How a size's run ended, as the results exchange judges it.
struct RunEnd {
    bool own_failure = false;      // this side's completion failed or stalled (not the peer's word)
    bool peer_lost = false;        // the peer went silent or closed: nobody to swap with
    bool peer_done = false;        // the peer signalled its end first (its message began to arrive, or it closed)
    bool stalled_on_path = false;  // both sides' evidence shows where packets stopped
    bool peer_gave_up = false;     // the peer's run failed first and said so
};

// The results exchanged: the peer's figures into `sr`, each side's evidence
// (RoCE packets and link counts since the run began) with them. Returns why
// the run ends early (nullopt to go on): this side's own abort, or a peer
// gone or silent. A server whose own run failed or stalled speaks first
// (`Exchange::stalled`), since the client would wait in its loop for the
// results the server waits for; the client meets that in its results step.
// A run that stalled or failed while the peer still answered is judged by
// both sides' evidence: where it shows a link that went down or where RoCE
// packets stopped, the reason says so after what failed. Every wait for the
// peer's word is the heartbeat's rule (stall_evidence.hpp: --timeout without
// a byte), whichever timer ended the run, as bw's.
std::optional<std::string> exchange_results(report::SizeResult& sr, net::Exchange& ex, const perf::LinkOptions& o,
                                            const PacketWatch& packets, RunEnd& end)
{
    bool aborted = sr.local.aborted;
    std::string abort_reason = sr.local.abort_reason;
    const Evidence mine = packets.now();
    const std::string peer_host = net::host_of(ex.channel().peer());
    // A lost peer: this side's own link first, whichever timer fired (and
    // whether or not the peer's results still came, then judged too).
    const auto judge = [&](const Json& theirs, bool own) {
        const bool named = end.peer_lost ? name_lost_peer(abort_reason, peer_host, mine, theirs, o.tcp_port)
                                         : name_stall(abort_reason, own, peer_host, mine, theirs, o.tcp_port);
        end.stalled_on_path = named || end.stalled_on_path;
    };
    // Without the peer's evidence (it never came: the link that carries it
    // may be the one that went down) this side's own is judged alone.
    if (end.own_failure && !end.peer_lost && ex.role() == net::Role::server) {
        const auto theirs =
            ex.stalled(fmt::format("server side ended the run: {}", abort_reason), to_json(mine), o.timeout);
        judge(theirs.value_or(Json::object()), true);
        return abort_reason;
    }
    Json local = report::to_json(sr.local);
    local.update(to_json(mine));
    const auto wait = end.peer_lost ? lost_peer_wait : o.timeout;
    try {
        const Json theirs = ex.results(local, wait, net::Wait::silence);
        sr.peer = report::latency_stats_from_json(theirs);
        if (aborted)
            judge(theirs, true);
    } catch (const TimeoutError& e) {
        // The peer is gone or silent: keep what this side measured, and say
        // so after reading this side's own link. A peer that signalled its
        // end and whose word never came: what this side knows of it.
        if (end.peer_done)
            abort_reason = peer_word_missing(ex.channel().peer(), wait, e.what(), net::tcp_state(ex.channel().fd()));
        else if (!aborted)
            abort_reason = e.what();
        if (end.own_failure)
            judge(Json::object(), true);
        else
            end.stalled_on_path = name_lost_peer(abort_reason, peer_host, mine) || end.stalled_on_path;
        aborted = true;
    } catch (const std::exception& e) {
        if (!ex.peer_evidence() && !aborted)
            throw;
        if (ex.peer_evidence()) {  // the server's run ended first and said why
            abort_reason = e.what();
            aborted = true;
            end.peer_gave_up = true;
            judge(*ex.peer_evidence(), false);
        } else if (end.peer_done) {  // the peer's word, without evidence
            abort_reason = e.what();
        }
    }
    if (aborted)
        return abort_reason;
    return std::nullopt;
}

}  // namespace

void check_combination(const PingPongOptions& o)
{
    perf::check_op_transport(o.op, o.transport);
    perf::check_atomic_sizes(o);
    perf::check_srq(o.srq, o.op, o.transport);
    if (o.op == perf::Op::write)
        for (auto s : o.sizes)
            if (s < 1)
                throw UsageError(fmt::format("{} write needs sizes of at least 1 byte", given(Given::op)));
}

report::PingPongReport run_ping_pong(const PingPongOptions& given,
                                     const std::function<void(const report::SizeResult&)>& progress)
{
    // 0-1. Everything local first, then connect and agree on the test.
    LinkSession<PingPongOptions> session =
        open_session(given, TestTerms<PingPongOptions>{"ping-pong", pairs_of, params_of, adopted});
    const PingPongOptions& o = session.test;
    const perf::LinkSide& side = session.side;
    const perf::Clock& clock = session.clock;
    net::Exchange& ex = session.ex;
    const bool client = !o.host.empty();
    const std::vector<int>& cpus = side.cpus;

    // 2. Resources sized for the largest message, then the endpoints.
    const std::uint32_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    const auto pairs = connect_pairs(o, side, ex, largest, session.cm);
    const verbs::LinkResources& res = *pairs.front();
    report::PingPongReport rep = ping_pong_header(o, side, ex, res, clock);
    perf::fill_cm_events(rep, session.cm);
    const PacketWatch packets(res.device_name(), side.port);
    ex.answer_stalls_with([&packets] { return to_json(packets.now()); });

    // 3. One run per size, between barriers; the server reports back.
    for (const std::uint32_t size : o.sizes) {
        perf::LatencyRun run;
        perf::set_common_run(run, o, size, res);
        rep.inline_used = rep.inline_used || run.use_inline;
        if (perf::is_atomic(o.op))  // each pair's counter starts at 0 (before the barrier: the client waits for it)
            for (const auto& pair : pairs)
                std::memset(pair->recv_buf(), 0, perf::atomic_bytes);
        if (const auto why = perf::barrier_failure(ex); !why.empty()) {
            rep.aborted = true;  // the sizes measured so far are the report
            rep.abort_reason = why;
            rep.stalled_on_path = name_lost_peer(rep.abort_reason, net::host_of(ex.channel().peer()), packets.now());
            break;
        }
        const perf::Role role = client ? perf::Role::client : perf::Role::server;
        std::vector<perf::LatencyResult> results(o.threads);
        const std::string lost = run_pairs(pairs, run, role, cpus, ex, o.timeout, clock, results);
        report::SizeResult sr;
        sr.local = side_figures(size, results, cpus, clock, o.histogram_rows);
        if (!lost.empty()) {
            sr.local.aborted = true;
            sr.local.abort_reason = lost;
        }
        rep.completion_failed = std::any_of(results.begin(), results.end(),
                                            [](const perf::LatencyResult& r) { return r.completion_failed; });
        if (perf::is_atomic(o.op) && !client) {  // the client's atomics are done: it sent its results
            std::uint64_t sum = 0;
            for (const auto& pair : pairs) {
                std::uint64_t counter = 0;
                std::memcpy(&counter, pair->recv_buf(), sizeof counter);
                sum += counter;
            }
            sr.local.atomic_counter = sum;
        }
        RunEnd how;
        how.peer_lost = !lost.empty();
        how.own_failure = std::any_of(results.begin(), results.end(),
                                      [](const perf::LatencyResult& r) { return r.completion_failed || r.stalled; });
        how.peer_done = !how.peer_lost && !how.own_failure &&
                        std::any_of(results.begin(), results.end(), [](const perf::LatencyResult& r) {
                            return r.aborted && r.abort_reason == perf::Watchdog::finished_reason;
                        });
        const std::optional<std::string> ended = exchange_results(sr, ex, o, packets, how);
        if (perf::is_atomic(o.op) && client) {
            std::uint64_t done = 0;
            for (const perf::LatencyResult& r : results)
                done += r.exchanged;
            sr.atomic_expected = done;
        }
        rep.stalled_on_path = rep.stalled_on_path || how.stalled_on_path;
        rep.peer_gave_up = rep.peer_gave_up || how.peer_gave_up;
        rep.sizes.push_back(sr);
        if (progress)
            progress(sr);
        if (ended) {
            rep.aborted = true;
            rep.abort_reason = *ended;
            break;
        }
    }
    return rep;
}

}  // namespace qps::ops
