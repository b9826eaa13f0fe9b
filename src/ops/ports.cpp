#include "src/ops/ports.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <poll.h>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::ops {

namespace {

using steady = std::chrono::steady_clock;

verbs::Filter filter_of(const PortsQuery& query)
{
    return verbs::Filter{query.device, query.port};
}

// Sleeps until `due`; true when SIGINT/SIGTERM (or a request) came first.
bool interrupted_before(steady::time_point due)
{
    const int fd = net::interrupt_fd();
    while (!net::interrupt_pending()) {
        const auto left = due - steady::now();
        if (left <= steady::duration::zero())
            return false;
        // Round up: poll's unit is a millisecond, and waking early would spin.
        const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<long long>(ms, 60'000))) < 0 && errno != EINTR)
            throw SystemError("poll (waiting for the next sample)", errno);
    }
    return true;
}

}  // namespace

report::PortsReport ports_report(const PortsQuery& query)
{
    return report::build_ports_report(verbs::snapshot_devices(filter_of(query)));
}

void run_watch(const report::WatchOptions& options, const std::function<report::PortsReport()>& read,
               const std::function<void(const report::WatchSample&)>& emit)
{
    const auto interval =
        std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(options.interval_s));
    report::CounterWatch watch(options.interval_s);
    // The schedule starts when the first sample has been read: the first
    // read (loading the providers) is slower than the later ones.
    // A slow sample (a loaded machine) skips the ticks that would come less
    // than half an interval after it, so two samples are never closer than
    // that; otherwise the gap after it would shrink to whatever was left.
    steady::time_point due, last;
    for (std::uint64_t n = 0; options.count == 0 || n < options.count; ++n) {
        if (n > 0) {
            due += interval;
            if (const auto behind = last + interval / 2 - due; behind > steady::duration::zero())
                due += interval * ((behind + interval - steady::duration(1)) / interval);
            if (interrupted_before(due))
                return;
        }
        if (net::interrupt_pending())
            return;
        const report::PortsReport report = read();
        const auto now = steady::now();
        if (n == 0)
            due = now;
        last = now;
        emit(watch.next(report, now, std::chrono::system_clock::now()));
    }
}

void watch_ports(const PortsQuery& query, const report::WatchOptions& options,
                 const std::function<void(const report::WatchSample&)>& emit)
{
    const verbs::Filter filter = filter_of(query);
    run_watch(
        options,
        [&] { return report::build_ports_report(verbs::snapshot_devices(filter, verbs::Detail::counters)); },
        emit);
    net::clear_interrupt();  // Ctrl-C / SIGTERM end the watch: its normal end
}

}  // namespace qps::ops
