#include "src/perf/pingpong/loop.hpp"

#include <atomic>
#include <cerrno>
#include <fmt/format.h>
#include <poll.h>

#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/perf/watchdog.hpp"

namespace qps::perf {

namespace {

// One signalled send in this many: the rest complete silently.
constexpr std::uint32_t signal_every = 32;

void check_wc(const ibv_wc& wc, const char* what)
{
    if (wc.status != IBV_WC_SUCCESS)
        throw OperationError(fmt::format("{} completed with {}: {}", what, *decode::wc_status(wc.status).name,
                                         decode::wc_status_meaning(wc.status)));
}

struct Poster {
    verbs::TestResources& res;
    const LatencyRun& run;
    ibv_sge sge{};
    ibv_send_wr wr{};
    ibv_sge rsge{};
    ibv_recv_wr rwr{};
    std::uint64_t posted = 0;

    Poster(verbs::TestResources& r, const LatencyRun& l) : res(r), run(l)
    {
        prepare_send_wr(wr, sge, res, run.op, run.size);
        prepare_recv_wr(rwr, rsge, res);
    }

    // Posts one request; every signal_every-th is signalled so the send
    // queue is reclaimed (and a read is always signalled: we wait for it).
    void post()
    {
        const bool signalled = run.op == Op::read || posted % signal_every == 0;
        wr.wr_id = posted;
        wr.send_flags = (signalled ? IBV_SEND_SIGNALED : 0) | (run.use_inline ? IBV_SEND_INLINE : 0);
        ibv_send_wr* bad = nullptr;
        if (int rc = ibv_post_send(res.qp(), &wr, &bad); rc != 0)
            throw SystemError("ibv_post_send", rc);
        ++posted;
    }

    void repost_receive()
    {
        ibv_recv_wr* bad = nullptr;
        if (int rc = ibv_post_recv(res.qp(), &rwr, &bad); rc != 0)
            throw SystemError("ibv_post_recv", rc);
    }

    // Reaps signalled send completions without waiting.
    void reap_sends()
    {
        ibv_wc wc[4];
        int n;
        while ((n = ibv_poll_cq(res.send_cq(), 4, wc)) > 0)
            for (int i = 0; i < n; ++i)
                check_wc(wc[i], "a send");
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
    }
};

// What one side waits for between its posts.
class Arrival {
public:
    Arrival(verbs::TestResources& res, const LatencyRun& run)
        : res_(res), op_(run.op), marker_(res.recv_buf() + (run.size ? run.size - 1 : 0))
    {
    }

    // Busy-polls until the peer's message `seq` has arrived; false when the
    // watchdog says stop.
    bool wait(std::uint64_t seq, Watchdog& dog, std::uint64_t progress, const char*& reason)
    {
        std::uint32_t empty = 0;
        const std::uint8_t expected = marker_for(seq);
        for (;;) {
            if (op_ == Op::write) {
                if (*marker_ == expected)
                    return true;
            } else {
                ibv_wc wc;
                const int n = ibv_poll_cq(res_.recv_cq(), 1, &wc);
                if (n > 0) {
                    check_wc(wc, "a receive");
                    return true;
                }
                if (n < 0)
                    throw SystemError("ibv_poll_cq", EIO);
            }
            if (++empty == polls_per_check) {
                empty = 0;
                if ((reason = dog.check(progress)))
                    return false;
            }
        }
    }

    // Write ping-pong: the last byte of each message carries 1..255, cycling.
    static std::uint8_t marker_for(std::uint64_t seq) { return static_cast<std::uint8_t>(seq % 255 + 1); }

private:
    verbs::TestResources& res_;
    Op op_;
    volatile std::uint8_t* marker_;
};

bool waiting_for_read(verbs::TestResources& res, Watchdog& dog, std::uint64_t progress, const char*& reason)
{
    std::uint32_t empty = 0;
    ibv_wc wc;
    for (;;) {
        const int n = ibv_poll_cq(res.send_cq(), 1, &wc);
        if (n > 0) {
            check_wc(wc, "an RDMA read");
            return true;
        }
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
        if (++empty == polls_per_check) {
            empty = 0;
            if ((reason = dog.check(progress)))
                return false;
        }
    }
}

// The server of a read test has nothing to do but wait for the client.
// A client that dies closes the socket; one that hangs ends by its own
// watchdog, which closes it too.
LatencyResult serve_read(const LatencyRun& run)
{
    pollfd p{run.oob_fd, POLLIN | POLLRDHUP, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    return {};
}

}  // namespace

void prepost_receives(verbs::TestResources& res, std::uint32_t size)
{
    LatencyRun run;
    run.size = size;
    Poster poster(res, run);
    for (int i = 0; i < 64; ++i)
        poster.repost_receive();
}

LatencyResult run_latency(verbs::TestResources& res, Role role, const LatencyRun& run, const Clock& clock)
{
    if (run.op == Op::read && role == Role::server)
        return serve_read(run);

    LatencyResult r;
    Poster poster(res, run);
    Arrival arrival(res, run);
    Watchdog dog(clock, run.silence_limit, run.oob_fd);
    const char* reason = nullptr;
    const bool client = role == Role::client;
    const bool ping_pong = run.op != Op::read;
    const std::uint64_t total = run.warmup + run.iterations;
    const double ns_per_tick = 1.0 / clock.info().ticks_per_ns;
    // One-way latency is half the round trip for ping-pong ops.
    const double scale = ns_per_tick * (ping_pong ? 0.5 : 1.0);
    std::uint64_t duration_ticks = 0;
    if (run.duration)
        duration_ticks = static_cast<std::uint64_t>(static_cast<double>(run.duration->count()) / ns_per_tick);

    std::uint64_t measure_start = 0, last = 0;
    for (std::uint64_t i = 0;; ++i) {
        const bool measuring = i >= run.warmup;
        if (!run.duration && i >= total)
            break;
        if (client) {
            // A sample is one round trip: from just before message i goes
            // out to just after its reply is seen. The bookkeeping (recording,
            // reposting the receive, reaping sends) happens outside it, so
            // the figure is the network's and the peer's, not this loop's.
            if (run.op == Op::write)
                res.send_buf()[run.size - 1] = Arrival::marker_for(i);
            const std::uint64_t t0 = clock.now();
            poster.post();
            const bool ok = ping_pong ? arrival.wait(i, dog, r.exchanged, reason)
                                      : waiting_for_read(res, dog, r.exchanged, reason);
            const std::uint64_t t1 = clock.now();
            if (!ok)
                break;
            if (measuring) {
                r.histogram.record(static_cast<std::uint64_t>(static_cast<double>(t1 - t0) * scale + 0.5));
                ++r.measured;
                if (i == run.warmup)
                    measure_start = t0;
                last = t1;
            }
            if (run.op == Op::send)
                poster.repost_receive();
        } else {
            // Server: wait for message i and answer it at once; everything
            // else comes after the answer is on its way. It measures too:
            // the time between two answers is also one round trip.
            if (!arrival.wait(i, dog, r.exchanged, reason))
                break;
            if (run.op == Op::write)
                res.send_buf()[run.size - 1] = Arrival::marker_for(i);
            poster.post();
            const std::uint64_t t = clock.now();
            if (run.op == Op::send)
                poster.repost_receive();
            if (measuring && last != 0) {
                r.histogram.record(static_cast<std::uint64_t>(static_cast<double>(t - last) * scale + 0.5));
                ++r.measured;
            }
            if (i == run.warmup)
                measure_start = t;
            last = t;
        }
        ++r.exchanged;
        if (poster.posted % signal_every == 1 && run.op != Op::read)
            poster.reap_sends();
        if (client && run.duration && measuring && last - measure_start >= duration_ticks)
            break;
    }
    if (reason) {
        // A server in duration mode stops when the client says it is done:
        // that is the normal end, not an abort.
        const bool normal_end = !client && run.duration && std::string_view(reason).find("finished") != std::string_view::npos;
        r.aborted = !normal_end;
        if (r.aborted)
            r.abort_reason = reason;
    }
    if (measure_start && last > measure_start) {
        r.measured_seconds = static_cast<double>(last - measure_start) * ns_per_tick / 1e9;
        r.start_tick = measure_start;
        r.end_tick = last;
    }
    return r;
}

}  // namespace qps::perf
