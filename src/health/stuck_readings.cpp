// Reading the host's QPs over an interval (read_qps_over, watch_qps): the
// readings that QpJudge (stuck.cpp) judges, and the port counters around them.
#include "src/health/stuck.hpp"

#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "src/health/counter_checks.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/net/channel.hpp"
#include "src/net/interfaces.hpp"
#include "src/net/interrupt.hpp"

namespace qps::health {

std::chrono::steady_clock::time_point next_reading_slot(std::chrono::steady_clock::time_point next,
                                                        std::chrono::steady_clock::time_point now,
                                                        std::chrono::steady_clock::duration every)
{
    if (next > now || every <= std::chrono::steady_clock::duration::zero())
        return next;
    return next + every * ((now - next) / every + 1);
}

QpReadings read_qps_over(double seconds, int every_ms)
{
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto end = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
    const auto every = std::chrono::duration_cast<clock::duration>(std::chrono::milliseconds(every_ms));
    QpReadings r;
    r.readings.push_back(kernel::list_kernel_qps());
    bool on = true;
    for (auto next = start + every; on; next += every) {
        next = next_reading_slot(next, clock::now(), every);
        if (next >= end)
            break;
        on = net::sleep_unless_interrupted(next);
        if (on)
            r.readings.push_back(kernel::list_kernel_qps());
    }
    r.interrupted = !(on && net::sleep_unless_interrupted(end));
    r.readings.push_back(kernel::list_kernel_qps());
    r.seconds = std::chrono::duration<double>(clock::now() - start).count();
    if (!r.interrupted)
        r.seconds = seconds;  // as asked: the rates are per the interval the user gave
    return r;
}

QpWatch watch_qps(double seconds)
{
    struct PortCounters {
        std::string device;
        std::uint32_t port;
        kernel::CounterSet counters, hw_counters;
    };
    // Every port's counters before the readings (the links' dump is one
    // message a port; a dump of every QP only for this would cost as much
    // as a reading on a host of tens of thousands of QPs). Those of ports
    // without a user QP in the first reading are dropped after.
    std::vector<PortCounters> ports;
    try {
        for (const auto& l : kernel::list_rdma_links())
            ports.push_back({l.dev_name, l.port, kernel::read_port_counters(l.dev_name, l.port, "counters"),
                             kernel::read_port_counters(l.dev_name, l.port, "hw_counters")});
    } catch (const std::exception&) {
        // read_qps_over() says what the kernel refused.
    }
    QpWatch w;
    QpReadings r = read_qps_over(seconds);
    w.readings = std::move(r.readings);
    w.seconds = r.seconds;
    w.interrupted = r.interrupted;
    // The ports of the first reading's user QPs, in the order they first appear.
    std::vector<const PortCounters*> watched;
    for (const auto& q : w.readings.front()) {
        if (!q.pid || q.port == 0)
            continue;
        if (std::any_of(watched.begin(), watched.end(),
                        [&](const PortCounters* p) { return p->device == q.dev_name && p->port == q.port; }))
            continue;
        const auto it = std::find_if(ports.begin(), ports.end(), [&](const PortCounters& p) {
            return p.device == q.dev_name && p.port == q.port;
        });
        if (it != ports.end())
            watched.push_back(&*it);
    }
    // Only the verdicts `qp list --stalled` shows: tens of thousands of idle QPs need none kept.
    const std::vector<kernel::KernelCmId> ids = cm_ids_or_none();
    const QpJudge judge(w.readings, w.seconds, ids, net::local_addresses());
    for (const auto& q : w.readings.back())
        if (auto v = judge.judge(q); v && (v->no_progress || v->error_state))
            w.verdicts.push_back(std::move(*v));
    for (const PortCounters* p : watched) {
        const bool has_stuck = std::any_of(w.verdicts.begin(), w.verdicts.end(), [&](const QpVerdict& v) {
            return v.stuck && v.qp.dev_name == p->device && v.qp.port == p->port;
        });
        if (!has_stuck)
            continue;
        for (const char* subdir : {"counters", "hw_counters"}) {
            const auto& before = std::string_view(subdir) == "counters" ? p->counters : p->hw_counters;
            const auto after = kernel::read_port_counters(p->device, p->port, subdir);
            for (auto& f : rising_counter_findings(p->device, p->port, before, after, subdir, w.seconds))
                if (f.status != Status::skipped)
                    w.port_counters.push_back(std::move(f));
        }
    }
    return w;
}

}  // namespace qps::health
