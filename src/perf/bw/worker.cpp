#include "src/perf/bw/worker.hpp"

#include <algorithm>
#include <atomic>
#include <functional>

#include "src/perf/bw/aggregate.hpp"
#include "src/perf/crew.hpp"
#include "src/perf/link_common.hpp"

namespace qps::perf {

namespace {

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
        total.sends_completed += r.sends_completed;
        total.qps_received += r.qps_received;
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

CrewResult run_crew(const std::vector<WorkerPlan>& plans, const BwRun& run, const Clock& clock, net::PeerWatch& peer)
{
    CrewResult out;
    const auto n = static_cast<std::uint32_t>(plans.size());
    const bool alone = n == 1;  // no --threads: the loop as it runs alone
    if (alone) {
        // On this thread, which looks at the peer itself: with no second
        // thread in the process, glibc leaves out the cancellation bracket it
        // puts around every system call of a threaded one (rxe's doorbell
        // write(), once a message; README "Instructions per message").
        const PinnedHere pin(plans.front().cpu);
        BwRun mine = run;
        mine.peer = &peer;
        mine.oob_fd = -1;
        out.total = run_bandwidth(plans.front().lanes, mine, clock);
        return out;
    }
    std::atomic<bool> halt{false};
    std::atomic<std::uint32_t> at_start{0}, warmed{0}, sent{0};
    std::atomic<std::uint64_t> opened{0};
    std::vector<ProgressSlot> progress(n);
    std::vector<BwResult> results(n);
    std::vector<int> cpus;
    for (const auto& plan : plans)
        cpus.push_back(plan.cpu);
    const std::uint64_t origin = clock.now();

    const auto work = [&](std::uint32_t i, const CrewEnd& end) {
        BwRun mine = run;
        mine.oob_fd = end.fd();
        mine.crew = {n, &at_start, &warmed, &opened, &halt, origin};
        // The last thread done sending makes the announcement, between two heartbeats.
        mine.on_sent = [&] {
            if (sent.fetch_add(1) + 1 == n && run.on_sent)
                peer.exclusive(run.on_sent);
        };
        mine.progress = nullptr;
        if (run.progress)
            mine.progress = [&progress, i](double s, double rate) {
                progress[i].seconds.store(s, std::memory_order_relaxed);
                progress[i].rate.store(rate, std::memory_order_relaxed);
            };
        try {
            results[i] = run_bandwidth(plans[i].lanes, mine, clock);
        } catch (...) {
            halt.store(true);
            throw;
        }
        if (results[i].aborted && !results[i].halted && !results[i].peer_ended_early) {
            halt.store(true);
            end.raise();
        }
    };
    // The threads' summed rate, once a second.
    std::function<void()> each_second;
    if (run.progress)
        each_second = [&] {
            double seconds = 0, rate = 0;
            for (const auto& slot : progress) {
                seconds = std::max(seconds, slot.seconds.load(std::memory_order_relaxed));
                rate += slot.rate.load(std::memory_order_relaxed);
            }
            if (seconds > 0)
                run.progress(seconds, rate);
        };
    const std::string lost = run_crew_threads(cpus, peer, work, each_second);

    out.total = total_of(results, run, clock);
    if (!lost.empty()) {
        // Whatever the loops made of the end signal, the peer is lost.
        out.total.aborted = true;
        out.total.peer_ended_early = false;
        out.total.peer_lost = true;
        out.total.abort_reason = lost;
    }
    for (std::uint32_t i = 0; i < n; ++i)
        out.threads.push_back(thread_stats(i, plans[i].cpu, results[i]));
    return out;
}

}  // namespace qps::perf
