#include "src/perf/bw/worker.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <poll.h>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

#include "src/error.hpp"
#include "src/perf/bw/aggregate.hpp"

namespace qps::perf {

namespace {

// A counter the threads raise and a poll can wait on; once raised for the
// end signal it stays readable (nobody reads it), so every thread sees it.
class EventFd {
public:
    EventFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
    {
        if (fd_ < 0)
            throw SystemError("eventfd", errno);
    }
    ~EventFd() { ::close(fd_); }
    EventFd(const EventFd&) = delete;
    EventFd& operator=(const EventFd&) = delete;

    int fd() const { return fd_; }
    void raise() const
    {
        const std::uint64_t one = 1;
        while (::write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
        }
    }
    // What was raised since the last take (0 if nothing).
    std::uint64_t take() const
    {
        std::uint64_t n = 0;
        return ::read(fd_, &n, sizeof n) == sizeof n ? n : 0;
    }

private:
    int fd_;
};

// One thread's progress figures, each on its own cache line.
struct alignas(64) ProgressSlot {
    std::atomic<double> seconds{0}, rate{0};
};

report::ThreadStats thread_stats(std::uint32_t index, int cpu, const BwResult& r)
{
    report::ThreadStats t;
    t.index = index;
    t.cpu = cpu;
    t.tx = r.tx;
    t.rx = r.rx;
    t.cpu_user_s = r.cpu.user_s;
    t.cpu_sys_s = r.cpu.sys_s;
    t.cpu_wall_s = r.cpu.wall_s;
    t.cpu_percent = r.cpu.percent();
    t.aborted = r.aborted;
    t.abort_reason = r.abort_reason;
    return t;
}

// The side's total from its threads.
BwResult total_of(const std::vector<BwResult>& results, const BwRun& run, const Clock& clock)
{
    BwResult total;
    const double ticks_per_s = clock.info().ticks_per_ns * 1e9;
    std::vector<ThreadSpan> tx, rx;
    for (const BwResult& r : results) {
        if (r.tx)
            tx.push_back({*r.tx, r.tx_trace.start_tick, r.tx_trace.end_tick, r.tx_trace.grid ? &*r.tx_trace.grid : nullptr});
        if (r.rx)
            rx.push_back({*r.rx, r.rx_trace.start_tick, r.rx_trace.end_tick, r.rx_trace.grid ? &*r.rx_trace.grid : nullptr});
        total.cpu.user_s += r.cpu.user_s;
        total.cpu.sys_s += r.cpu.sys_s;
        total.cpu.wall_s = std::max(total.cpu.wall_s, r.cpu.wall_s);
    }
    if (run.sends)
        total.tx = aggregate(tx, ticks_per_s);
    if (run.receives)
        total.rx = aggregate(rx, ticks_per_s);
    // The reason is the first thread's own (not "another thread ended the run").
    bool own_failure = false;
    for (const BwResult& r : results) {
        if (!r.aborted)
            continue;
        const bool own = !r.halted && !r.peer_ended_early;
        if (!total.aborted || (own && !own_failure)) {
            total.abort_reason = r.abort_reason;
            own_failure = own_failure || own;
        }
        total.aborted = true;
        total.peer_ended_early = total.peer_ended_early || r.peer_ended_early;
    }
    if (own_failure)
        total.peer_ended_early = false;
    return total;
}

}  // namespace

CrewResult run_crew(const std::vector<WorkerPlan>& plans, const BwRun& run, const Clock& clock)
{
    CrewResult out;
    if (plans.size() == 1) {
        out.total = run_bandwidth(plans.front().lanes, run, clock);
        return out;
    }
    const auto n = static_cast<std::uint32_t>(plans.size());
    const EventFd end, finished;
    std::atomic<bool> halt{false};
    std::atomic<std::uint32_t> at_start{0}, warmed{0}, sent{0};
    std::vector<ProgressSlot> progress(n);
    std::vector<BwResult> results(n);
    std::vector<std::exception_ptr> errors(n);
    const auto stop_all = [&] {
        halt.store(true);
        end.raise();
    };

    BwRun base = run;
    base.oob_fd = end.fd();
    base.progress = nullptr;
    base.on_sent = nullptr;
    base.crew = {n, &at_start, &warmed, &halt, clock.now()};

    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try {
                pin_cpu(plans[i].cpu >= 0 ? std::optional<int>(plans[i].cpu) : std::nullopt);
                BwRun mine = base;
                mine.on_sent = [&] {
                    if (sent.fetch_add(1) + 1 == n && run.on_sent)
                        run.on_sent();
                };
                if (run.progress)
                    mine.progress = [&progress, i](double s, double rate) {
                        progress[i].seconds.store(s, std::memory_order_relaxed);
                        progress[i].rate.store(rate, std::memory_order_relaxed);
                    };
                results[i] = run_bandwidth(plans[i].lanes, mine, clock);
                if (results[i].aborted && !results[i].halted && !results[i].peer_ended_early)
                    stop_all();
            } catch (...) {
                errors[i] = std::current_exception();
                stop_all();
            }
            finished.raise();
        });

    // The coordinator: the peer's done signal becomes the crew's end signal.
    std::uint64_t done = 0;
    bool peer_signalled = false;
    auto next_progress = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (done < n) {
        pollfd p[2]{{finished.fd(), POLLIN, 0}, {peer_signalled ? -1 : run.oob_fd, POLLIN | POLLRDHUP, 0}};
        if (::poll(p, 2, run.progress ? 200 : -1) < 0 && errno != EINTR)
            stop_all();  // cannot watch the socket: end the run rather than hang
        if (p[0].revents & POLLIN)
            done += finished.take();
        if (!peer_signalled && p[1].revents) {
            peer_signalled = true;
            end.raise();
        }
        if (run.progress && std::chrono::steady_clock::now() >= next_progress) {
            next_progress += std::chrono::seconds(1);
            double seconds = 0, rate = 0;
            for (const auto& slot : progress) {
                seconds = std::max(seconds, slot.seconds.load(std::memory_order_relaxed));
                rate += slot.rate.load(std::memory_order_relaxed);
            }
            if (seconds > 0)
                run.progress(seconds, rate);
        }
    }
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);

    out.total = total_of(results, run, clock);
    for (std::uint32_t i = 0; i < n; ++i)
        out.threads.push_back(thread_stats(i, plans[i].cpu, results[i]));
    return out;
}

}  // namespace qps::perf
