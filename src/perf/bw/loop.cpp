#include "src/perf/bw/loop.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fmt/format.h>
#include <limits>
#include <poll.h>
#include <thread>

#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/perf/bw/span.hpp"
#include "src/perf/watchdog.hpp"
#include "src/perf/windows.hpp"

namespace qps::perf {

namespace {

constexpr int poll_batch = 16;
constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();

std::string wc_failure(const ibv_wc& wc, const char* what)
{
    return fmt::format("{} completed with {}: {}", what, *decode::wc_status(wc.status).name,
                       decode::wc_status_meaning(wc.status));
}

// One QP's send and receive state, its WR chains built once.
class Lane {
public:
    Lane(verbs::TestResources& res, const BwRun& run) : res_(res), run_(run)
    {
        wr_.resize(run.post_list);
        sge_.resize(run.post_list);
        for (std::uint32_t i = 0; i < run.post_list; ++i) {
            prepare_send_wr(wr_[i], sge_[i], res, run.op, run.size);
            wr_[i].next = i + 1 < run.post_list ? &wr_[i + 1] : nullptr;
        }
        rx_batch_ = std::max<std::uint32_t>(1, std::min<std::uint32_t>(32, run.rx_depth / 4));
        rwr_.resize(rx_batch_);
        rsge_.resize(rx_batch_);
        for (std::uint32_t i = 0; i < rx_batch_; ++i) {
            prepare_recv_wr(rwr_[i], rsge_[i], res);
            rwr_[i].next = i + 1 < rx_batch_ ? &rwr_[i + 1] : nullptr;
        }
        limit_ = run.duration ? no_limit : run.warmup + run.iterations + run.tx_depth;
    }

    // Keeps the send queue full, in chains of post_list.
    void fill()
    {
        while (posted_ < limit_) {
            const std::uint64_t room = run_.tx_depth - (posted_ - completed_);
            const std::uint64_t n = std::min<std::uint64_t>(run_.post_list, limit_ - posted_);
            if (room < n)
                return;
            post(static_cast<std::uint32_t>(n));
        }
    }

    // Send completions: returns the messages newly completed; a failed one
    // sets `failure`.
    std::uint64_t reap_sends(std::string& failure)
    {
        ibv_wc wc[poll_batch];
        const int n = ibv_poll_cq(res_.send_cq(), poll_batch, wc);
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
        const std::uint64_t before = completed_;
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (failure.empty())
                    failure = wc_failure(wc[i], run_.op == Op::read ? "an RDMA read" : run_.op == Op::write ? "an RDMA write" : "a send");
                continue;
            }
            completed_ = std::max(completed_, wc[i].wr_id);
        }
        return completed_ - before;
    }

    // Receive completions: returns how many arrived, reposting in chains.
    std::uint64_t reap_receives(std::string& failure)
    {
        ibv_wc wc[poll_batch];
        const int n = ibv_poll_cq(res_.recv_cq(), poll_batch, wc);
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
        std::uint64_t ok = 0;
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (failure.empty() && wc[i].status != IBV_WC_WR_FLUSH_ERR)
                    failure = wc_failure(wc[i], "a receive");
                continue;
            }
            ++ok;
        }
        outstanding_receives_ -= static_cast<std::uint32_t>(n);
        while (run_.rx_depth - outstanding_receives_ >= rx_batch_)
            post_receives(rx_batch_);
        return ok;
    }

    // Tops the receive queue up to rx_depth (end of a run).
    void refill_receives()
    {
        while (outstanding_receives_ < run_.rx_depth)
            post_receives(std::min(rx_batch_, run_.rx_depth - outstanding_receives_));
    }

    // Duration mode: posts nothing more but a last signalled WR if the
    // last one posted was silent, so every WR completes visibly.
    void stop()
    {
        limit_ = posted_ + (last_signalled_ == posted_ ? 0 : 1);
    }

    bool sending_done() const { return posted_ == limit_ && completed_ == limit_; }
    std::uint64_t completed() const { return completed_; }

    // Receives are counted by the caller across runs (see post_initial_receives).
    void set_outstanding_receives(std::uint32_t n) { outstanding_receives_ = n; }

private:
    void post(std::uint32_t n)
    {
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint64_t m = posted_ + k + 1;  // this WR's number, 1-based
            // Also the last warm-up and the last measured message, so the
            // span's ends fall on exact counts (one QP).
            const bool signalled = m % run_.cq_mod == 0 || m == limit_ || m == run_.warmup ||
                                   m == run_.warmup + run_.iterations;
            wr_[k].wr_id = m;
            wr_[k].send_flags = (signalled ? IBV_SEND_SIGNALED : 0) | (run_.use_inline ? IBV_SEND_INLINE : 0);
            if (signalled)
                last_signalled_ = m;
        }
        wr_[n - 1].next = nullptr;
        ibv_send_wr* bad = nullptr;
        const int rc = ibv_post_send(res_.qp(), wr_.data(), &bad);
        if (n < run_.post_list)
            wr_[n - 1].next = &wr_[n];
        if (rc != 0)
            throw SystemError("ibv_post_send", rc);
        posted_ += n;
    }

    void post_receives(std::uint32_t n)
    {
        rwr_[n - 1].next = nullptr;
        ibv_recv_wr* bad = nullptr;
        const int rc = ibv_post_recv(res_.qp(), rwr_.data(), &bad);
        if (n < rx_batch_)
            rwr_[n - 1].next = &rwr_[n];
        if (rc != 0)
            throw SystemError("ibv_post_recv", rc);
        outstanding_receives_ += n;
    }

    verbs::TestResources& res_;
    const BwRun& run_;
    std::vector<ibv_send_wr> wr_;
    std::vector<ibv_sge> sge_;
    std::vector<ibv_recv_wr> rwr_;
    std::vector<ibv_sge> rsge_;
    std::uint32_t rx_batch_ = 1;
    std::uint64_t posted_ = 0, completed_ = 0, limit_ = 0, last_signalled_ = 0;
    std::uint32_t outstanding_receives_ = 0;
};

// A side with nothing to poll (the target of writes or reads) waits for
// the end signal without spinning (the peer done, gone or silent).
void wait_passively(int oob_fd)
{
    pollfd p[2]{{oob_fd, POLLIN | POLLRDHUP, 0}, {net::interrupt_fd(), POLLIN, 0}};
    while (::poll(p, 2, -1) < 0 && errno == EINTR) {
    }
}

}  // namespace

void post_initial_receives(verbs::TestResources& res, std::uint32_t rx_depth)
{
    BwRun run;
    run.rx_depth = rx_depth;
    run.post_list = 1;
    Lane lane(res, run);
    lane.refill_receives();
}

BwResult run_bandwidth(const std::vector<verbs::TestResources*>& resources, const BwRun& run, const Clock& clock)
{
    BwResult r;
    const bool crewed = run.crew.size > 1;
    const auto cpu_now = crewed ? thread_cpu_times_now : cpu_times_now;
    const auto halted = [&run] { return run.crew.halt && run.crew.halt->load(std::memory_order_relaxed); };
    const CpuTimes cpu_at_entry = cpu_now();
    const std::uint64_t entry_tick = clock.now();
    if (!run.sends && !run.receives) {
        wait_passively(run.oob_fd);
        r.cpu = cpu_use(cpu_at_entry, cpu_now(), clock.to_ns(clock.now() - entry_tick) / 1e9);
        if (net::interrupt_pending() || halted()) {
            r.aborted = true;
            r.halted = !net::interrupt_pending();
            r.abort_reason = r.halted ? "another thread of this side ended the run" : "interrupted";
        }
        return r;
    }

    std::vector<Lane> lanes;
    lanes.reserve(resources.size());
    for (auto* res : resources) {
        lanes.emplace_back(*res, run);
        lanes.back().set_outstanding_receives(run.receives ? run.rx_depth : 0);
    }
    const std::uint64_t nq = lanes.size();
    const std::uint64_t window_ticks =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(run.window.count()) * clock.info().ticks_per_ns));
    const std::uint64_t duration_ticks =
        run.duration ? static_cast<std::uint64_t>(static_cast<double>(run.duration->count()) * clock.info().ticks_per_ns) : 0;
    if (crewed) {
        // Room for the whole span up front (-D), or for 4,096 windows (-n).
        const std::size_t reserve = run.duration ? static_cast<std::size_t>(duration_ticks / window_ticks) + 64 : 4096;
        r.tx_trace.grid.emplace(run.crew.grid_origin, window_ticks, run.sends ? reserve : 0);
        r.rx_trace.grid.emplace(run.crew.grid_origin, window_ticks, run.receives ? reserve : 0);
    }
    const std::uint64_t end_count = run.duration ? no_limit : (run.warmup + run.iterations) * nq;
    Span tx(run.warmup * nq, end_count, window_ticks, run.size, crewed ? &*r.tx_trace.grid : nullptr);
    // The receiver's span runs to its last receive: what arrives in bursts
    // (a software device) averages out over every message after warm-up.
    Span rx(run.warmup * nq, no_limit, window_ticks, run.size, crewed ? &*r.rx_trace.grid : nullptr);
    const std::uint64_t second_ticks = static_cast<std::uint64_t>(1e9 * clock.info().ticks_per_ns);

    // bw --threads: the crew's threads start together.
    if (run.crew.at_start) {
        run.crew.at_start->fetch_add(1);
        while (run.crew.at_start->load() < run.crew.size) {
            if (halted() || net::interrupt_pending()) {
                r.aborted = true;
                r.halted = !net::interrupt_pending();
                r.abort_reason = r.halted ? "another thread of this side ended the run" : "interrupted";
                r.cpu = cpu_use(cpu_at_entry, cpu_now(), clock.to_ns(clock.now() - entry_tick) / 1e9);
                return r;
            }
            std::this_thread::yield();
        }
    }
    // -D with threads: each span starts once every thread is past its warm-up.
    const bool gate_start = run.crew.warmed && run.crew.opened && run.duration;
    bool warm_counted = false;
    std::uint64_t deadline = no_limit;  // -D: when the span ends

    Watchdog dog(clock, run.silence_limit, -1);
    std::string failure;
    std::uint64_t tx_total = 0, rx_total = 0;
    bool sent = !run.sends, announced = false, stopped = false, peer_done = false;
    std::uint32_t empty = 0, rounds = 0;
    std::uint64_t next_progress = 0;
    // The end signal: every 1024 rounds or 10 ms of completions (1024 rounds took 14 s on rxe).
    const std::uint64_t look_ticks = static_cast<std::uint64_t>(1e7 * clock.info().ticks_per_ns);
    std::uint64_t progress_tick = 0, next_look = look_ticks;
    std::optional<CpuTimes> cpu_start, cpu_end;
    std::uint64_t cpu_start_tick = 0, cpu_end_tick = 0;

    for (;;) {
        std::uint64_t new_tx = 0, new_rx = 0;
        for (auto& lane : lanes) {
            if (run.sends) {
                lane.fill();
                new_tx += lane.reap_sends(failure);
            }
            if (run.receives)
                new_rx += lane.reap_receives(failure);
        }
        if (!failure.empty()) {
            r.aborted = true;
            r.abort_reason = failure;
            break;
        }
        if (new_tx || new_rx) {
            empty = 0;
            const std::uint64_t now = clock.now();
            progress_tick = now;
            tx_total += new_tx;
            rx_total += new_rx;
            if (new_tx) {
                bool may_start = true;
                if (gate_start && !tx.started()) {
                    if (!warm_counted && tx.reached_start(tx_total)) {
                        warm_counted = true;
                        run.crew.warmed->fetch_add(1);
                    }
                    may_start = warm_counted && run.crew.warmed->load(std::memory_order_relaxed) >= run.crew.size;
                    if (may_start) {
                        std::uint64_t none = 0;
                        run.crew.opened->compare_exchange_strong(none, now);  // the first to see it sets it
                        deadline = run.crew.opened->load() + duration_ticks;
                    }
                }
                tx.advance(now, tx_total, new_tx, may_start);
                if (!gate_start && tx.started() && deadline == no_limit && run.duration)
                    deadline = tx.start_tick() + duration_ticks;
            }
            if (new_rx)
                rx.advance(now, rx_total, new_rx);
            if (!cpu_start && (tx.started() || rx.started())) {
                cpu_start = cpu_now();
                cpu_start_tick = now;
                next_progress = now + second_ticks;
            }
            if (run.duration && tx.started() && !stopped && now >= deadline) {
                tx.end(now);
                for (auto& lane : lanes)
                    lane.stop();
                stopped = true;
            }
            if (run.progress && cpu_start && now >= next_progress) {
                next_progress = now + second_ticks;
                const auto& s = tx.started() ? tx : rx;
                const auto st = s.stats(clock);
                if (st)
                    run.progress(st->seconds, st->bytes_per_s);
            }
        } else if (++empty == polls_per_check) {
            empty = 0;
            if (const char* why = dog.check(sent ? 0 : tx_total); why && !sent) {
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
        if (!sent && std::all_of(lanes.begin(), lanes.end(), [](const Lane& l) { return l.sending_done(); })) {
            sent = true;
            tx.end(clock.now());
        }
        if (cpu_start && !cpu_end && (!run.sends || tx.ended()) && (!run.receives || rx.ended())) {
            cpu_end = cpu_now();
            cpu_end_tick = clock.now();
        }
        if (sent && !announced) {
            announced = true;
            if (run.on_sent)
                run.on_sent();
        }
        // Every round once this side has sent, else now and then (a client hears
        // nothing before its announcement unless the peer gave up, died or went silent).
        const bool look = sent || ++rounds % 1024 == 0 || progress_tick >= next_look;
        if (look)
            next_look = progress_tick + look_ticks;
        if (look && !peer_done && fd_readable(run.oob_fd)) {
            if (halted()) {
                r.aborted = true;
                r.halted = true;
                r.abort_reason = "another thread of this side ended the run";
                break;
            }
            peer_done = true;
            if (run.client && !sent) {
                r.aborted = true;
                r.peer_ended_early = true;
                r.abort_reason = "the peer ended the run early or closed the out-of-band connection";
                break;
            }
        }
        if (sent && peer_done)
            break;
    }
    const std::uint64_t end_tick = clock.now();
    // Whatever arrived before the peer's done signal belongs to the run.
    if (run.receives && !r.aborted) {
        std::string ignored;
        for (auto& lane : lanes)
            while (const std::uint64_t n = lane.reap_receives(ignored)) {
                rx_total += n;
                rx.advance(end_tick, rx_total, n);
            }
    }
    tx.end(tx.ended() ? tx.end_tick() : end_tick);
    rx.end(rx.end_tick());  // the last receive
    if (run.receives)
        for (auto& lane : lanes)
            lane.refill_receives();
    r.tx = run.sends ? tx.stats(clock) : std::nullopt;
    r.rx = run.receives ? rx.stats(clock) : std::nullopt;
    if (crewed) {
        r.tx_trace.start_tick = tx.start_tick();
        r.tx_trace.end_tick = tx.end_tick();
        r.rx_trace.start_tick = rx.start_tick();
        r.rx_trace.end_tick = rx.end_tick();
    }
    if (cpu_start) {
        if (!cpu_end) {
            cpu_end = cpu_now();
            cpu_end_tick = end_tick;
        }
        r.cpu = cpu_use(*cpu_start, *cpu_end, clock.to_ns(cpu_end_tick - cpu_start_tick) / 1e9);
    } else {
        r.cpu = cpu_use(cpu_at_entry, cpu_now(), clock.to_ns(end_tick - entry_tick) / 1e9);
    }
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
