#include "src/perf/bw/loop.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fmt/format.h>
#include <poll.h>
#include <span>
#include <thread>

#include "src/net/interrupt.hpp"
#include "src/perf/bw/lane.hpp"
#include "src/perf/bw/span.hpp"
#include "src/perf/watchdog.hpp"
#include "src/perf/rate_windows.hpp"

namespace qps::perf {

namespace {

// The peer looked at once (BwRun::peer: this side's heartbeat sent when
// due, the peer's taken): true when it is done or went silent (`lost` then
// says why).
bool peer_ended(net::PeerWatch& peer, std::string& lost)
{
    switch (peer.look()) {
    case net::PeerWatch::Peer::running: return false;
    case net::PeerWatch::Peer::silent: lost = peer.silence_reason(); return true;
    case net::PeerWatch::Peer::done: return true;
    }
    return false;
}

// A side with nothing to poll (the target of writes or reads) waits for
// the end signal without spinning (the peer done, gone or silent). With
// the peer watched here (BwRun::peer), it wakes at least once a heartbeat
// interval to keep them going; `lost` says why when the peer went silent.
void wait_passively(const BwRun& run, std::string& lost)
{
    if (!run.peer) {
        pollfd p[2]{{run.oob_fd, POLLIN | POLLRDHUP, 0}, {net::interrupt_fd(), POLLIN, 0}};
        while (::poll(p, 2, -1) < 0 && errno == EINTR) {
        }
        return;
    }
    while (!net::interrupt_pending() && !peer_ended(*run.peer, lost)) {
        pollfd p[2]{{run.peer->fd(), POLLIN | POLLRDHUP, 0}, {net::interrupt_fd(), POLLIN, 0}};
        if (::poll(p, 2, static_cast<int>(run.peer->interval().count())) < 0 && errno != EINTR)
            return;  // cannot watch the socket: end the wait rather than hang
    }
}

// The peer went silent (BwRun::peer): the run is cut short by that, whatever
// the loop made of the end, as the crew's coordinator reports it.
void mark_peer_lost(BwResult& r, const std::string& lost)
{
    r.aborted = true;
    r.peer_ended_early = false;
    r.peer_lost = true;
    r.abort_reason = lost;
}

constexpr const char* halted_by_sibling = "another thread of this side ended the run";

// bw --threads: a sibling thread ended the run.
bool crew_halted(const BwRun& run) { return run.crew.halt && run.crew.halt->load(std::memory_order_relaxed); }

// A run that never measured: interrupted, or ended by a sibling thread.
void mark_halted_or_interrupted(BwResult& r)
{
    r.aborted = true;
    r.halted = !net::interrupt_pending();
    r.abort_reason = r.halted ? halted_by_sibling : "interrupted";
}

// The CPU clock of the run (the thread's own in a crew, else the
// process's), read at its entry: a run that measures no span reports the
// CPU from there.
struct RunEntry {
    CpuTimes (*cpu_now)();
    CpuTimes cpu;
    std::uint64_t tick;

    RunEntry(bool crewed, const Clock& clock)
        : cpu_now(crewed ? thread_cpu_times_now : cpu_times_now), cpu(cpu_now()), tick(clock.now())
    {
    }
    CpuUse cpu_until(const Clock& clock, std::uint64_t end_tick) const
    {
        return cpu_use(cpu, cpu_now(), clock.to_ns(end_tick - tick) / 1e9);
    }
};

// The side that only waits: its CPU use, and how the wait ended.
BwResult run_as_target(const BwRun& run, const Clock& clock, const RunEntry& entry)
{
    BwResult r;
    std::string lost;
    wait_passively(run, lost);
    r.cpu = entry.cpu_until(clock, clock.now());
    if (net::interrupt_pending() || crew_halted(run))
        mark_halted_or_interrupted(r);
    else if (!lost.empty())
        mark_peer_lost(r, lost);
    return r;
}

std::vector<Lane> make_lanes(const std::vector<verbs::LinkResources*>& resources, const BwRun& run)
{
    std::vector<Lane> lanes;
    lanes.reserve(resources.size());
    for (auto* res : resources) {
        lanes.emplace_back(*res, run);
        lanes.back().set_outstanding_receives(run.receives ? run.rx_depth : 0);
    }
    return lanes;
}

// The run's intervals in clock ticks.
struct BwTicks {
    std::uint64_t window;    // of the bandwidth windows
    std::uint64_t duration;  // -D; 0 with -n
    std::uint64_t second;    // between two progress calls
    std::uint64_t look;      // between two looks for the end signal (10 ms)

    BwTicks(const BwRun& run, const Clock& clock)
        : window(std::max<std::uint64_t>(1, ticks_in(run.window, clock))),
          duration(run.duration ? ticks_in(*run.duration, clock) : 0),
          second(static_cast<std::uint64_t>(1e9 * clock.info().ticks_per_ns)),
          look(static_cast<std::uint64_t>(1e7 * clock.info().ticks_per_ns))
    {
    }
    static std::uint64_t ticks_in(std::chrono::nanoseconds d, const Clock& clock)
    {
        return static_cast<std::uint64_t>(static_cast<double>(d.count()) * clock.info().ticks_per_ns);
    }
};

// bw --threads: the windows of both directions on the crew's shared grid,
// with room for the whole span up front (-D), or for 4,096 windows (-n).
void reserve_traces(BwResult& r, const BwRun& run, const BwTicks& ticks)
{
    const std::size_t reserve = run.duration ? static_cast<std::size_t>(ticks.duration / ticks.window) + 64 : 4096;
    r.tx_trace.grid.emplace(run.crew.grid_origin, ticks.window, run.sends ? reserve : 0);
    r.rx_trace.grid.emplace(run.crew.grid_origin, ticks.window, run.receives ? reserve : 0);
}

// bw --threads: the crew's threads start together. False when a sibling
// or an interrupt ended the run at the start line.
bool start_with_crew(const BwRun& run)
{
    if (!run.crew.at_start)
        return true;
    run.crew.at_start->fetch_add(1);
    while (run.crew.at_start->load() < run.crew.size) {
        if (crew_halted(run) || net::interrupt_pending())
            return false;
        std::this_thread::yield();
    }
    return true;
}

// Everything the loop needs, set up before it, and what it leaves for the
// end of the run.
struct BwLoop {
    const BwRun& run;
    const Clock& clock;
    CpuTimes (*cpu_now)();
    std::vector<Lane>& lanes;
    Span& tx;
    Span& rx;
    const BwTicks& ticks;
    BwResult& r;  // aborted and why
    // Out:
    std::uint64_t rx_total = 0;
    std::optional<CpuTimes> cpu_start{}, cpu_end{};  // the CPU over the spans
    std::uint64_t cpu_start_tick = 0, cpu_end_tick = 0;
};

// The loop's own state, a local of the loop function: what it reads every
// round, copied out of BwLoop once (the compiler keeps it in registers or
// its own frame instead of reloading it through BwLoop after every call
// into the provider), and its counts and flags.
struct BwRound {
    const BwRun& run;
    const Clock& clock;
    const std::span<Lane> lanes;
    Span& tx;
    Span& rx;
    const BwTicks ticks;
    // -D with threads: each span starts once every thread is past its warm-up.
    const bool gate_start;
    bool warm_counted = false;
    std::uint64_t deadline = no_limit;  // -D: when the span ends
    std::uint64_t tx_total = 0, rx_total = 0;
    bool sent, announced = false, stopped = false, peer_done = false;
    std::uint32_t empty = 0, rounds = 0;
    std::uint64_t next_progress = 0;
    // The end signal: every 1024 rounds or 10 ms of completions (1024 rounds took 14 s on rxe).
    std::uint64_t progress_tick = 0, next_look;
    std::optional<CpuTimes> cpu_start, cpu_end;
    std::uint64_t cpu_start_tick = 0, cpu_end_tick = 0;
    std::string lost;  // BwRun::peer: why the peer was lost (its silence), or ""

    explicit BwRound(const BwLoop& l)
        : run(l.run), clock(l.clock), lanes(l.lanes), tx(l.tx), rx(l.rx), ticks(l.ticks),
          gate_start(l.run.crew.warmed && l.run.crew.opened && l.run.duration), sent(!l.run.sends),
          next_look(l.ticks.look)
    {
    }
};

// Messages newly completed in one round over every lane.
struct Fresh {
    std::uint64_t tx = 0, rx = 0;
};

// One round of posting and polling on every lane; a failed completion
// sets `failure`.
[[gnu::always_inline]] inline Fresh poll_lanes(BwRound& s, std::string& failure)
{
    Fresh fresh;
    for (auto& lane : s.lanes) {
        if (s.run.sends) {
            lane.fill();
            fresh.tx += lane.reap_sends(failure);
        }
        if (s.run.receives)
            fresh.rx += lane.reap_receives(failure);
    }
    return fresh;
}

// New send completions move the tx span; with -D and threads it starts only
// once the whole crew is warm, and every thread's span ends at the same tick.
[[gnu::always_inline]] inline void advance_tx(BwRound& s, std::uint64_t now, std::uint64_t new_tx)
{
    const BwRun& run = s.run;
    bool may_start = true;
    if (s.gate_start && !s.tx.started()) {
        if (!s.warm_counted && s.tx.reached_start(s.tx_total)) {
            s.warm_counted = true;
            run.crew.warmed->fetch_add(1);
        }
        may_start = s.warm_counted && run.crew.warmed->load(std::memory_order_relaxed) >= run.crew.size;
        if (may_start) {
            std::uint64_t none = 0;
            run.crew.opened->compare_exchange_strong(none, now);  // the first to see it sets it
            s.deadline = run.crew.opened->load() + s.ticks.duration;
        }
    }
    s.tx.advance(now, s.tx_total, new_tx, may_start);
    if (!s.gate_start && s.tx.started() && s.deadline == no_limit && run.duration)
        s.deadline = s.tx.start_tick() + s.ticks.duration;
}

// Once a span has started: the CPU from then, the -D end, and the progress
// call about once a second.
[[gnu::always_inline]] inline void after_advance(BwRound& s, std::uint64_t now, CpuTimes (*cpu_now)())
{
    if (!s.cpu_start && (s.tx.started() || s.rx.started())) {
        s.cpu_start = cpu_now();
        s.cpu_start_tick = now;
        s.next_progress = now + s.ticks.second;
    }
    if (s.run.duration && s.tx.started() && !s.stopped && now >= s.deadline) {
        s.tx.end(now);
        for (auto& lane : s.lanes)
            lane.stop();
        s.stopped = true;
    }
    if (s.run.progress && s.cpu_start && now >= s.next_progress) {
        s.next_progress = now + s.ticks.second;
        const auto& span = s.tx.started() ? s.tx : s.rx;
        const auto st = span.stats(s.clock);
        if (st)
            s.run.progress(st->seconds, st->bytes_per_s);
    }
}

// A round that completed messages: the totals and the spans move on.
[[gnu::always_inline]] inline void count_fresh(BwRound& s, const Fresh& fresh, CpuTimes (*cpu_now)())
{
    const std::uint64_t now = s.clock.now();
    s.progress_tick = now;
    s.tx_total += fresh.tx;
    s.rx_total += fresh.rx;
    if (fresh.tx)
        advance_tx(s, now, fresh.tx);
    if (fresh.rx)
        s.rx.advance(now, s.rx_total, fresh.rx);
    after_advance(s, now, cpu_now);
}

// After every round: the end of sending (and the client's announcement),
// and the end of the CPU span once every span of this side has ended.
[[gnu::always_inline]] inline void note_ends(BwRound& s, CpuTimes (*cpu_now)())
{
    if (!s.sent && std::all_of(s.lanes.begin(), s.lanes.end(), [](const Lane& l) { return l.sending_done(); })) {
        s.sent = true;
        s.tx.end(s.clock.now());
    }
    if (s.cpu_start && !s.cpu_end && (!s.run.sends || s.tx.ended()) && (!s.run.receives || s.rx.ended())) {
        s.cpu_end = cpu_now();
        s.cpu_end_tick = s.clock.now();
    }
    if (s.sent && !s.announced) {
        s.announced = true;
        if (s.run.on_sent)
            s.run.on_sent();
    }
}

// The end signal: the crew's (or a pipe's) readable, or with the peer
// watched here (BwRun::peer) its end or its silence (`lost`); a look also
// sends this side's heartbeat when one is due.
[[gnu::always_inline]] inline bool end_signalled(BwRound& s)
{
    return s.run.peer ? peer_ended(*s.run.peer, s.lost) : fd_readable(s.run.oob_fd);
}

// Every round once this side has sent, else now and then (a client hears
// nothing before its announcement unless the peer gave up, died or went
// silent): the end signal. True when it ends the run early (`r` says why).
[[gnu::always_inline]] inline bool peer_ended_run(BwRound& s, BwResult& r)
{
    const bool look = s.sent || ++s.rounds % 1024 == 0 || s.progress_tick >= s.next_look;
    if (!look)
        return false;
    s.next_look = s.progress_tick + s.ticks.look;
    if (s.peer_done) {
        if (s.run.peer)
            s.run.peer->keep_alive();  // this side may still run (bidirectional bw)
        return false;
    }
    if (!end_signalled(s))
        return false;
    if (crew_halted(s.run)) {
        r.aborted = true;
        r.halted = true;
        r.abort_reason = halted_by_sibling;
        return true;
    }
    s.peer_done = true;
    if (s.run.client && !s.sent) {
        r.aborted = true;
        r.peer_ended_early = true;
        r.abort_reason = "the peer ended the run early or closed the out-of-band connection";
        return true;
    }
    return false;
}

// After the loop: what arrived before the peer's done signal, the spans'
// ends, the receive queues topped up, and the figures.
void finish_run(BwLoop& l, const RunEntry& entry)
{
    const BwRun& run = l.run;
    BwResult& r = l.r;
    const std::uint64_t end_tick = l.clock.now();
    // Whatever arrived before the peer's done signal belongs to the run.
    if (run.receives && !r.aborted) {
        std::string ignored;
        for (auto& lane : l.lanes)
            while (const std::uint64_t n = lane.reap_receives(ignored)) {
                l.rx_total += n;
                l.rx.advance(end_tick, l.rx_total, n);
            }
    }
    l.tx.end(l.tx.ended() ? l.tx.end_tick() : end_tick);
    l.rx.end(l.rx.end_tick());  // the last receive
    if (run.receives)
        for (auto& lane : l.lanes)
            lane.refill_receives();
    r.tx = run.sends ? l.tx.stats(l.clock) : std::nullopt;
    r.rx = run.receives ? l.rx.stats(l.clock) : std::nullopt;
    for (const auto& lane : l.lanes) {
        r.sends_completed += lane.completed();
        r.qps_received += lane.received() > 0 ? 1 : 0;
    }
    if (run.crew.size > 1) {
        r.tx_trace.start_tick = l.tx.start_tick();
        r.tx_trace.end_tick = l.tx.end_tick();
        r.rx_trace.start_tick = l.rx.start_tick();
        r.rx_trace.end_tick = l.rx.end_tick();
    }
    if (!l.cpu_start) {
        r.cpu = entry.cpu_until(l.clock, end_tick);
        return;
    }
    if (!l.cpu_end) {
        l.cpu_end = l.cpu_now();
        l.cpu_end_tick = end_tick;
    }
    r.cpu = cpu_use(*l.cpu_start, *l.cpu_end, l.clock.to_ns(l.cpu_end_tick - l.cpu_start_tick) / 1e9);
}

}  // namespace

// The hot loop, outside the anonymous namespace so a profiler can be
// pointed at it by name (bench/cost toggles callgrind on the function that
// calls the provider's post_send most). Its per-round helpers above are
// always inlined into it, as is Lane's per-message path (lane.hpp).
namespace hot {

[[gnu::noinline]] void bandwidth_loop(BwLoop& l)
{
    BwRound s(l);
    CpuTimes (*const cpu_now)() = l.cpu_now;
    BwResult& r = l.r;
    Watchdog dog(l.clock, l.run.silence_limit, -1);
    std::string failure;
    for (;;) {
        const Fresh fresh = poll_lanes(s, failure);
        if (!failure.empty()) {
            r.aborted = true;
            r.abort_reason = failure;
            break;
        }
        if (fresh.tx || fresh.rx) {
            s.empty = 0;
            count_fresh(s, fresh, cpu_now);
        } else if (++s.empty == polls_per_check) {
            s.empty = 0;
            if (const char* why = dog.check(s.sent ? 0 : s.tx_total); why && !s.sent) {
                r.aborted = true;
                r.abort_reason = why;
                break;
            }
            if (net::interrupt_pending()) {
                r.aborted = true;
                r.abort_reason = "interrupted";
                break;
            }
        }
        note_ends(s, cpu_now);
        if (peer_ended_run(s, r))
            break;
        if (s.sent && s.peer_done)
            break;
    }
    if (!s.lost.empty())
        mark_peer_lost(r, s.lost);
    l.rx_total = s.rx_total;
    l.cpu_start = s.cpu_start;
    l.cpu_end = s.cpu_end;
    l.cpu_start_tick = s.cpu_start_tick;
    l.cpu_end_tick = s.cpu_end_tick;
}

}  // namespace hot

void post_initial_receives(verbs::LinkResources& res, std::uint32_t rx_depth)
{
    BwRun run;
    run.rx_depth = rx_depth;
    run.post_list = 1;
    Lane lane(res, run);
    lane.refill_receives();
}

BwResult run_bandwidth(const std::vector<verbs::LinkResources*>& resources, const BwRun& run, const Clock& clock)
{
    const bool crewed = run.crew.size > 1;
    const RunEntry entry(crewed, clock);
    if (!run.sends && !run.receives)
        return run_as_target(run, clock, entry);

    BwResult r;
    std::vector<Lane> lanes = make_lanes(resources, run);
    const std::uint64_t nq = lanes.size();
    const BwTicks ticks(run, clock);
    if (crewed)
        reserve_traces(r, run, ticks);
    const std::uint64_t end_count = run.duration ? no_limit : (run.warmup + run.iterations) * nq;
    Span tx(run.warmup * nq, end_count, ticks.window, run.size, crewed ? &*r.tx_trace.grid : nullptr);
    // The receiver's span runs to its last receive: what arrives in bursts
    // (a software device) averages out over every message after warm-up.
    Span rx(run.warmup * nq, no_limit, ticks.window, run.size, crewed ? &*r.rx_trace.grid : nullptr);

    if (!start_with_crew(run)) {
        mark_halted_or_interrupted(r);
        r.cpu = entry.cpu_until(clock, clock.now());
        return r;
    }
    BwLoop l{run, clock, entry.cpu_now, lanes, tx, rx, ticks, r};
    hot::bandwidth_loop(l);
    finish_run(l, entry);
    return r;
}

void fill_pattern(std::uint8_t* buf, std::uint32_t size)
{
    for (std::uint32_t i = 0; i < size; ++i)
        buf[i] = static_cast<std::uint8_t>((i * 131u + size * 7u + (i >> 8)) & 0xff);
}

std::optional<std::string> check_pattern(const std::uint8_t* buf, std::uint32_t size)
{
    for (std::uint32_t i = 0; i < size; ++i) {
        const auto want = static_cast<std::uint8_t>((i * 131u + size * 7u + (i >> 8)) & 0xff);
        if (buf[i] != want)
            return fmt::format("byte {} of {} is {:#04x}, expected {:#04x}", i, size, buf[i], want);
    }
    return std::nullopt;
}

}  // namespace qps::perf
