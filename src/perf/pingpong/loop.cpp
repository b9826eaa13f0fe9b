#include "src/perf/pingpong/loop.hpp"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <poll.h>
#include <string_view>
#include <utility>

#include "src/error.hpp"
#include "src/perf/pingpong/post_poll.hpp"
#include "src/perf/sample_log.hpp"
#include "src/perf/watchdog.hpp"

namespace qps::perf {

namespace {

using namespace pingpong;

// One signalled send in this many: the rest complete silently.
constexpr std::uint64_t signal_every = 32;
// Receives go back in chains of this many WRs, one ibv_post_recv a chain:
// the provider's lock and call are paid once for them (rxe: 42 of the 105
// instructions a receive costs one at a time, bench/verbs-cost). The queue
// holds `preposted` at the start of a run, so at least preposted -
// recv_batch + 1 wait while one message is in flight; a run's end posts
// what it owes, so runs one after the other (sizes) never drain it.
constexpr std::uint32_t recv_batch = 16;
constexpr std::uint32_t preposted = 64;
static_assert(preposted % recv_batch == 0 && preposted >= 2 * recv_batch);
// A run's samples fit in the buffer up to this many words (8 MiB); longer
// runs, and every duration run (whose length is unknown), drain it when
// full. The server stores one word a message, the client two (the round
// trip and the post tick), so the client's buffer holds half as many.
constexpr std::size_t log_limit = std::size_t{1} << 20;
constexpr std::size_t log_limit_duration = std::size_t{1} << 16;

// The work requests of one run, built once: the signalled one and the
// silent one differ only in their flags; every signal_every-th post is
// signalled so the send queue is reclaimed (a read always is: we wait for
// its completion).
struct Requests {
    ibv_sge sge{};
    ibv_send_wr signalled{};
    ibv_send_wr silent{};
    ibv_sge rsge{};
    // recv_batch receive WRs, each the next's predecessor: posting
    // &recv[recv_batch - k] posts the last k.
    ibv_recv_wr recv[recv_batch]{};

    Requests(verbs::LinkResources& res, const LatencyRun& run)
    {
        prepare_send_wr(signalled, sge, res, run.op, run.size);
        const unsigned flags = run.use_inline ? IBV_SEND_INLINE : 0;
        silent = signalled;
        silent.send_flags = flags;
        signalled.send_flags = flags | IBV_SEND_SIGNALED;
        for (std::uint32_t k = 0; k < recv_batch; ++k) {
            prepare_recv_wr(recv[k], rsge, res);
            recv[k].next = k + 1 < recv_batch ? &recv[k + 1] : nullptr;
        }
    }
    Requests(const Requests&) = delete;  // the WRs point at sge and rsge
    Requests& operator=(const Requests&) = delete;
};

// Write ping-pong: the last byte of each message carries 1..255, cycling.
inline std::uint8_t next_marker(std::uint8_t m) { return m == 255 ? 1 : static_cast<std::uint8_t>(m + 1); }

// Everything a loop needs, set up before it; the loop copies what it uses
// into locals so the compiler can keep them in registers across the
// provider's calls.
struct Loop {
    verbs::LinkResources& res;
    const LatencyRun& run;
    bool tsc;
    Watchdog& dog;
    Requests& wrs;
    SampleLog& log;             // the server's
    PostedSampleLog& posted;    // the client's
    report::LatencyHistogram& histogram;
    report::LatencyHistogram& period;
    std::uint64_t total;           // iterations to run; max in duration mode
    std::uint64_t duration_ticks;  // client, duration mode: how long to measure
    // Without a coordinator thread (LatencyRun::peer): the watchdog is asked
    // this often (ticks) between messages too, so the heartbeats go on in a
    // run whose waits never reach polls_per_check empty polls; 0: never.
    // (looks_between_messages: 10 ms, a fifth of the shortest heartbeat
    // interval; more often would only add work to the loop.)
    std::uint64_t look_ticks;
    // Out:
    std::uint64_t done = 0;        // iterations completed
    const std::uint64_t* filled = nullptr;  // the log's samples end here (drained after the loop)
    std::uint64_t start = 0, last = 0;  // the measured span (ticks)
    const char* reason = nullptr;  // why the watchdog stopped it
};

// Milliseconds between two looks at the peer from a loop that makes
// progress (Loop::look_ticks).
constexpr std::uint64_t looks_between_messages = 10;

// What a loop reads every message, copied out of Loop once: a local the
// compiler keeps in registers or its own stack frame, instead of reloading
// it through Loop after every call into the provider.
struct Hot {
    ibv_qp* qp;
    ibv_srq* srq;  // --srq: receives go here
    ibv_cq* send_cq;
    ibv_cq* recv_cq;
    ibv_qp_ex* qpx;  // the extended verbs' view of the same (null: legacy only)
    ibv_cq_ex* send_cqx;
    ibv_cq_ex* recv_cqx;
    volatile std::uint8_t* mark_out;       // write: the last byte of our message
    volatile const std::uint8_t* mark_in;  // write: where the peer's marker lands
    ibv_send_wr* signalled;
    ibv_send_wr* silent;
    ibv_recv_wr* recv;  // a chain of recv_batch
    unsigned signalled_flags, silent_flags;  // the extended post's wr_flags (the WRs' send_flags)
    bool tsc;
    std::uint64_t total, warmup;
    std::uint64_t* end;  // of the sample log

    Hot(Loop& l, std::uint64_t* log_end)
        : qp(l.res.qp()), srq(l.res.srq()), send_cq(l.res.send_cq()), recv_cq(l.res.recv_cq()),
          qpx(l.res.qp_ex()), send_cqx(l.res.send_cq_ex()), recv_cqx(l.res.recv_cq_ex()),
          mark_out(l.res.send_buf() + last_byte(l.run)), mark_in(l.res.recv_buf() + last_byte(l.run)),
          signalled(&l.wrs.signalled), silent(&l.wrs.silent), recv(l.wrs.recv),
          signalled_flags(l.wrs.signalled.send_flags), silent_flags(l.wrs.silent.send_flags), tsc(l.tsc),
          total(l.total), warmup(l.run.warmup), end(log_end)
    {
    }
    static std::uint32_t last_byte(const LatencyRun& run) { return run.size ? run.size - 1 : 0; }
    // The CQs as the loop's verbs take them: ibv_cq_ex when `ex`, else ibv_cq
    // (wait_cq and reap_sends have both).
    template <bool ex>
    auto send_cq_of() const
    {
        if constexpr (ex)
            return send_cqx;
        else
            return send_cq;
    }
    template <bool ex>
    auto recv_cq_of() const
    {
        if constexpr (ex)
            return recv_cqx;
        else
            return recv_cq;
    }
};

// Posts the chain `wr` (the last k of Requests::recv): into the QP's own
// queue, or (--srq, XRC) the shared one.
inline void post_receives(ibv_qp* qp, ibv_srq* srq, ibv_recv_wr* wr)
{
    if (srq) {
        ibv_recv_wr* bad = nullptr;
        if (int rc = ibv_post_srq_recv(srq, wr, &bad); rc != 0) [[unlikely]]
            throw SystemError("ibv_post_srq_recv", rc);
    } else {
        post_recv(qp, wr);
    }
}

// The receives a send op's loop owes, counted as they complete: a whole
// chain goes back when recv_batch are owed; settle() posts the rest after
// the loop.
struct ReceivesOwed {
    std::uint32_t owed = 0;

    template <bool srq>
    [[gnu::always_inline]] inline void took_one(const Hot& h)
    {
        if (++owed != recv_batch) [[likely]]
            return;
        owed = 0;
        if constexpr (srq) {
            ibv_recv_wr* bad = nullptr;
            if (int rc = ibv_post_srq_recv(h.srq, h.recv, &bad); rc != 0) [[unlikely]]
                throw SystemError("ibv_post_srq_recv", rc);
        } else {
            post_recv(h.qp, h.recv);
        }
    }
    void settle(const Hot& h)
    {
        if (owed)
            post_receives(h.qp, h.srq, h.recv + (recv_batch - owed));
        owed = 0;
    }
};

// Busy-polls `cq` for one completion; false when the watchdog says stop.
// The extended CQ's, then the legacy one's.
[[gnu::always_inline]] inline bool wait_cq(ibv_cq_ex* cq, const char* what, Loop& l, std::uint64_t progress)
{
    std::uint32_t empty = 0;
    for (;;) {
        const int rc = take_one(cq, what);
        if (rc == 0)
            return true;
        if (rc != ENOENT) [[unlikely]]
            throw SystemError("ibv_start_poll", rc);
        if (++empty == polls_per_check) [[unlikely]] {
            empty = 0;
            if ((l.reason = l.dog.check(progress)))
                return false;
        }
    }
}

[[gnu::always_inline]] inline bool wait_cq(ibv_cq* cq, const char* what, Loop& l, std::uint64_t progress)
{
    ibv_wc wc;
    std::uint32_t empty = 0;
    for (;;) {
        const int n = ibv_poll_cq(cq, 1, &wc);
        if (n > 0) {
            check_wc(wc, what);
            return true;
        }
        if (n < 0) [[unlikely]]
            throw SystemError("ibv_poll_cq", EIO);
        if (++empty == polls_per_check) [[unlikely]] {
            empty = 0;
            if ((l.reason = l.dog.check(progress)))
                return false;
        }
    }
}

// Busy-polls the last byte of the receive buffer for the peer's marker.
[[gnu::always_inline]] inline bool wait_marker(volatile const std::uint8_t* at, std::uint8_t expected, Loop& l, std::uint64_t progress)
{
    std::uint32_t empty = 0;
    while (*at != expected) {
        if (++empty == polls_per_check) [[unlikely]] {
            empty = 0;
            if ((l.reason = l.dog.check(progress)))
                return false;
        }
    }
    return true;
}

// The client's loop for one op. A sample is one round trip: from just
// before message i goes out to just after its reply is seen (a read: its
// completion). Storing the sample, reposting the receive and reaping sends
// happen outside it, so the figure is the network's and the peer's, not
// this loop's. The post tick t0 is stored beside it: the loop period (post
// to next post, everything included: perftest's sample) is derived from
// consecutive t0s after the loop.
//
// What happens by the clock (a look at the peer, the duration's end) is
// one test a message, against whichever comes first; the warm-up's end is
// none: the loop runs in two passes of one body, up to and including
// message `warmup`, then the rest, and the warm-up is closed between them.
//
// `ex`: post with ibv_wr_* and poll with ibv_start_poll (the resources are
// extended(): chosen once a run, in client_loop); else the legacy verbs.
template <Op op, bool srq = false, bool ex = false>
[[gnu::always_inline]] inline void client_iterations(Loop& l)
{
    constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
    const Hot h(l, l.posted.end());
    if constexpr (ex)
        h.qpx->wr_id = h.signalled->wr_id;  // once a run: post_ex leaves it
    ReceivesOwed receives;
    std::uint64_t* cur = l.posted.begin();
    std::uint64_t deadline = never;
    std::uint64_t next_look = l.look_ticks ? 0 : never;
    std::uint64_t next_event = next_look;  // min(next_look, deadline)
    std::uint8_t marker = 0;
    std::uint64_t i = 0, t1 = 0;
    std::uint64_t limit = std::min(h.total, h.warmup + 1);
    for (;;) {
        for (; i < limit; ++i) {
            if (t1 >= next_event) [[unlikely]] {
                if (t1 >= deadline)
                    goto done;
                next_look = t1 + l.look_ticks;
                next_event = std::min(next_look, deadline);
                if ((l.reason = l.dog.check(i)))
                    goto done;
            }
            if constexpr (op == Op::write) {
                marker = next_marker(marker);
                *h.mark_out = marker;
            }
            if constexpr (op == Op::cas) {  // the value the previous one left, one more: all N succeed
                h.signalled->wr.atomic.compare_add = i;
                h.signalled->wr.atomic.swap = i + 1;
            }
            const std::uint64_t t0 = Clock::read(h.tsc);
            if constexpr (ex)
                post_ex<op>(h.qpx, *h.signalled,
                            one_sided(op) || i % signal_every == 0 ? h.signalled_flags : h.silent_flags);
            else
                post_send(h.qp, one_sided(op) || i % signal_every == 0 ? h.signalled : h.silent);
            bool ok;
            if constexpr (op == Op::write)
                ok = wait_marker(h.mark_in, marker, l, i);
            else if constexpr (one_sided(op))
                ok = wait_cq(h.send_cq_of<ex>(), op == Op::read ? "an RDMA read" : "an atomic", l, i);
            else
                ok = wait_cq(h.recv_cq_of<ex>(), "a receive", l, i);
            const std::uint64_t t_reply = Clock::read(h.tsc);
            if (!ok) [[unlikely]]
                goto done;
            t1 = t_reply;
            if (cur == h.end) [[unlikely]]  // only when the run is longer than the log
                cur = l.posted.drain(cur, l.histogram, l.period);
            cur[0] = t1 - t0;
            cur[1] = t0;
            cur += 2;
            if constexpr (op == Op::send)
                receives.took_one<srq>(h);
            if constexpr (!one_sided(op))
                if (i % signal_every == 0)
                    reap_sends(h.send_cq_of<ex>());
        }
        if (limit == h.total)
            break;
        // Message `warmup` is done: the measured span starts at its post
        // tick (the last word stored), and a duration run's end from it.
        l.start = cur[-1];
        if (l.duration_ticks) {
            deadline = l.start + l.duration_ticks;
            next_event = std::min(next_look, deadline);
        }
        limit = h.total;
    }
done:
    receives.settle(h);
    l.filled = cur;
    l.done = i;
    if (i > h.warmup)
        l.last = t1;
}

// The server's loop: wait for message i and answer it at once; everything
// else comes after the answer is on its way. It measures too: the time
// between two answers is also one round trip (its first sample, from
// nothing, is dropped with the warm-up).
template <Op op, bool srq = false, bool ex = false>
[[gnu::always_inline]] inline void server_iterations(Loop& l)
{
    const Hot h(l, l.log.end());
    if constexpr (ex)
        h.qpx->wr_id = h.signalled->wr_id;  // once a run: post_ex leaves it
    ReceivesOwed receives;
    std::uint64_t* cur = l.log.begin();
    std::uint8_t marker = 0;
    std::uint64_t i = 0, last = 0;
    std::uint64_t next_look = l.look_ticks ? 0 : std::numeric_limits<std::uint64_t>::max();
    for (; i < h.total; ++i) {
        if (last >= next_look) [[unlikely]] {
            next_look = last + l.look_ticks;
            if ((l.reason = l.dog.check(i)))
                break;
        }
        bool ok;
        if constexpr (op == Op::write) {
            marker = next_marker(marker);
            ok = wait_marker(h.mark_in, marker, l, i);
        } else {
            ok = wait_cq(h.recv_cq_of<ex>(), "a receive", l, i);
        }
        if (!ok) [[unlikely]]
            break;
        if constexpr (op == Op::write)
            *h.mark_out = marker;
        if constexpr (ex)
            post_ex<op>(h.qpx, *h.signalled, i % signal_every == 0 ? h.signalled_flags : h.silent_flags);
        else
            post_send(h.qp, i % signal_every == 0 ? h.signalled : h.silent);
        const std::uint64_t t = Clock::read(h.tsc);
        if constexpr (op == Op::send)
            receives.took_one<srq>(h);
        if (cur == h.end) [[unlikely]]
            cur = l.log.drain(cur, l.histogram);
        *cur++ = t - last;
        if (i % signal_every == 0)
            reap_sends(h.send_cq_of<ex>());
        if (i == h.warmup) [[unlikely]]
            l.start = t;
        last = t;
    }
    receives.settle(h);
    l.filled = cur;
    l.done = i;
    l.last = last;
}

// The server of a read test has nothing to do but wait for the client's
// end: its results, its death, or its silence (no heartbeat: a client
// stopped or hung), which the crew's coordinator turns into the end signal,
// or which it sees itself when it runs without one (run.peer), sending its
// own heartbeats meanwhile.
LatencyResult serve_read(const LatencyRun& run)
{
    if (!run.peer) {  // a worker of a crew: the end signal, or SIGINT/SIGTERM (the coordinator raises it too)
        pollfd p[2]{{run.oob_fd, POLLIN | POLLRDHUP, 0}, {net::interrupt_fd(), POLLIN, 0}};
        while (::poll(p, 2, -1) < 0 && errno == EINTR) {
        }
        LatencyResult r;
        if (net::interrupt_pending()) {
            r.aborted = true;
            r.abort_reason = "interrupted";
        }
        return r;
    }
    LatencyResult r;
    const int wait_ms = static_cast<int>(run.peer->interval().count());
    for (;;) {
        if (net::interrupt_pending()) {
            r.aborted = true;
            r.abort_reason = "interrupted";
            return r;
        }
        switch (run.peer->look()) {
        case net::PeerWatch::Peer::running:
            break;
        case net::PeerWatch::Peer::done:
            return r;
        case net::PeerWatch::Peer::silent:
            r.peer_lost = run.peer->silence_reason();
            return r;
        }
        pollfd p{run.peer->fd(), POLLIN | POLLRDHUP, 0};
        ::poll(&p, 1, wait_ms);  // a heartbeat, the client's end, or the time for this side's next heartbeat
    }
}

}  // namespace

// The hot loops, one function a role, outside the anonymous namespace so a
// profiler can be pointed at them by name (bench/cost toggles callgrind on
// the function that calls the provider's post_send most).
namespace hot {

// The verbs are chosen here, once a run: the extended ones when the
// resources have them (LinkResources::extended()), else the legacy ones.
template <bool ex>
[[gnu::always_inline]] inline void client_loop_of(Loop& l)
{
    switch (l.run.op) {
    case Op::send:
        return l.res.srq() ? client_iterations<Op::send, true, ex>(l) : client_iterations<Op::send, false, ex>(l);
    case Op::write: return client_iterations<Op::write, false, ex>(l);
    case Op::read: return client_iterations<Op::read, false, ex>(l);
    case Op::fadd: return client_iterations<Op::fadd, false, ex>(l);
    case Op::cas: return client_iterations<Op::cas, false, ex>(l);
    }
}

template <bool ex>
[[gnu::always_inline]] inline void server_loop_of(Loop& l)
{
    switch (l.run.op) {
    case Op::send:
        return l.res.srq() ? server_iterations<Op::send, true, ex>(l) : server_iterations<Op::send, false, ex>(l);
    case Op::write: return server_iterations<Op::write, false, ex>(l);
    case Op::read:
    case Op::fadd:
    case Op::cas: return;  // serve_read
    }
}

[[gnu::noinline]] void client_loop(Loop& l)
{
    return l.res.extended() ? client_loop_of<true>(l) : client_loop_of<false>(l);
}

[[gnu::noinline]] void server_loop(Loop& l)
{
    return l.res.extended() ? server_loop_of<true>(l) : server_loop_of<false>(l);
}

}  // namespace hot

void prepost_receives(verbs::LinkResources& res, std::uint32_t size)
{
    LatencyRun run;
    run.size = size;
    Requests wrs(res, run);
    for (std::uint32_t k = 0; k < preposted / recv_batch; ++k)  // --srq: 64 for each QP on it; XRC: its own SRQ
        post_receives(res.qp(), res.srq(), wrs.recv);
}

LatencyResult run_latency(verbs::LinkResources& res, Role role, const LatencyRun& run, const Clock& clock)
{
    if (one_sided(run.op) && role == Role::server)
        return serve_read(run);

    const bool client = role == Role::client;
    const double ns_per_tick = 1.0 / clock.info().ticks_per_ns;
    // One-way latency is half the round trip for ping-pong ops.
    const double scale = ns_per_tick * (one_sided(run.op) ? 1.0 : 0.5);
    const std::uint64_t total = run.duration ? std::numeric_limits<std::uint64_t>::max() : run.warmup + run.iterations;
    std::uint64_t duration_ticks = 0;
    if (run.duration)
        duration_ticks = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(static_cast<double>(run.duration->count()) / ns_per_tick));
    // The server's first sample (from the start, not from an answer) is
    // always dropped.
    const std::uint64_t skip = client ? run.warmup : std::max<std::uint64_t>(run.warmup, 1);

    LatencyResult r;
    Requests wrs(res, run);
    // Only the side's own log gets a buffer of its size; the other is one word.
    const std::size_t words = run.duration ? log_limit_duration : log_limit;
    SampleLog log(client ? 0 : SampleLog::capacity_for(total, words), skip, scale);
    PostedSampleLog posted(client ? PostedSampleLog::capacity_for(total, words) : 0, skip, scale);
    Watchdog dog(clock, run.silence_limit, run.oob_fd, run.peer);
    const std::uint64_t look_ticks = run.peer ? looks_between_messages * dog.look_ticks() : 0;
    Loop l{res, run, clock.uses_tsc(), dog, wrs, log, posted, r.histogram, r.period, total, duration_ticks, look_ticks};
    std::string failed;  // a completion's error ends the run like a stall: reported with what was measured
    try {
        if (client)
            hot::client_loop(l);
        else
            hot::server_loop(l);
    } catch (const CompletionError& e) {
        failed = e.what();
        if (e.flushed)
            if (std::string cause = first_cause(res); !cause.empty())
                failed = std::move(cause);
    }

    // A failed completion leaves the loop before it records where its
    // samples end (l.filled stays null): they are not reported.
    if (l.filled && client) {
        posted.drain(l.filled, r.histogram, r.period);
    } else if (l.filled) {
        // The server's sample runs from one answer's post to the next: it
        // is its loop period, and the only figure it has.
        log.drain(l.filled, r.histogram);
        r.period = r.histogram;
    }
    r.exchanged = l.done;
    r.measured = r.histogram.count();
    if (!failed.empty()) {
        r.aborted = true;
        r.completion_failed = true;
        r.abort_reason = failed;
    } else if (l.reason) {
        // A server in duration mode stops when the client says it is done:
        // that is the normal end, not an abort.
        const bool normal_end =
            !client && run.duration && std::string_view(l.reason).find("finished") != std::string_view::npos;
        r.aborted = !normal_end;
        r.stalled = Watchdog::is_stall(l.reason);
        if (r.aborted)
            r.abort_reason = l.reason;
        r.peer_lost = dog.lost();
    }
    if (l.start && l.last > l.start) {
        r.measured_seconds = static_cast<double>(l.last - l.start) * ns_per_tick / 1e9;
        r.start_tick = l.start;
        r.end_tick = l.last;
    }
    return r;
}

}  // namespace qps::perf
