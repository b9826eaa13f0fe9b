#include "src/ops/watch.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <poll.h>
#include <set>
#include <vector>

#include "src/error.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/net/interrupt.hpp"
#include "src/report/ports.hpp"
#include "src/verbs/async_events.hpp"
#include "src/verbs/discovery.hpp"
#include "src/watch/metrics.hpp"

namespace qps::ops {

namespace {

using steady = std::chrono::steady_clock;
using wall_clock = std::chrono::system_clock;
using decode::Severity;
using watch::WatchKind;
using watch::WatchRecord;

// The devices the watch holds a context of, for their events and looks.
class Devices {
public:
    Devices(std::string only, const std::function<void(const WatchRecord&)>& emit) : only_(std::move(only)), emit_(emit) {}

    // Opens the devices listed now and closes those no longer listed (a
    // driver may wait for its users to close before it lets a device go).
    void sync()
    {
        std::vector<verbs::ListedDevice> listed;
        try {
            listed = verbs::list_devices();
        } catch (const OperationError&) {
            // none on the host now: every context closes, the watch goes on
        }
        std::set<std::string> names;
        for (const auto& d : listed)
            if (only_.empty() || d.name == only_)
                names.insert(d.name);
        for (auto it = open_.begin(); it != open_.end();)
            if (names.count(it->first)) {
                ++it;
            } else {
                now_named_.erase(it->first);
                it = open_.erase(it);
            }
        for (const auto& name : names) {
            if (open_.count(name) || lost_.count(name))
                continue;
            try {
                verbs::OpenDevice d = verbs::open_device(name);
                verbs::make_events_nonblocking(d.ctx.get());
                open_.emplace(name, std::move(d));
                refused_.erase(name);
            } catch (const std::runtime_error& e) {
                if (refused_.insert(name).second)
                    emit_(watch::watch_record(WatchKind::look_failed, Severity::warning, name,
                                              fmt::format("cannot open {} for its events and ports: {}", name,
                                                          e.what()),
                                              wall_clock::now()));
            }
        }
        // A device that left and came back under the same name is watched again.
        for (auto it = lost_.begin(); it != lost_.end();)
            it = names.count(*it) ? std::next(it) : lost_.erase(it);
    }

    std::vector<verbs::DeviceSnapshot> snapshots()
    {
        std::vector<verbs::DeviceSnapshot> out;
        for (auto it = open_.begin(); it != open_.end();) {
            try {
                out.push_back(verbs::snapshot_device(it->second, std::nullopt, verbs::Detail::tables));
                unreadable_.erase(it->first);
                ++it;
            } catch (const std::runtime_error& e) {
                // Said once; the context is opened again at the next look.
                if (unreadable_.insert(it->first).second)
                    emit_(watch::watch_record(WatchKind::look_failed, Severity::warning, shown(it->first),
                                              fmt::format("reading {} failed: {}", shown(it->first), e.what()),
                                              wall_clock::now()));
                it = open_.erase(it);
            }
        }
        return out;
    }

    // Waits for events until `due`, an interrupt or the hooks' input saying
    // stop; true when interrupted or stopped (`stop_reason` says which).
    bool wait_for_events(steady::time_point due, const WatchHooks& hooks)
    {
        for (;;) {
            if (net::interrupt_pending())
                return true;
            const auto left = due - steady::now();
            if (left <= steady::duration::zero())
                return false;
            std::vector<pollfd> fds{{net::interrupt_fd(), POLLIN, 0}};
            const bool input = hooks.input_fd >= 0 && hooks.on_input;
            if (input)
                fds.push_back({hooks.input_fd, POLLIN, 0});
            const std::size_t first_device = fds.size();
            std::vector<std::string> names;
            for (const auto& [name, d] : open_) {
                fds.push_back({d.ctx->async_fd, POLLIN, 0});
                names.push_back(name);
            }
            const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
            const int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(ms, 60'000)));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throw SystemError("poll (waiting for the devices' events)", errno);
            }
            if (input && (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
                stop_reason = "its terminal went away";  // else poll would return at once, again and again
                return true;
            }
            if (input && fds[1].revents != 0 && hooks.on_input()) {
                stop_reason = hooks.input_stop;
                return true;
            }
            for (std::size_t i = first_device; i < fds.size(); ++i)
                if (fds[i].revents != 0)
                    read_events(names[i - first_device]);
        }
    }

    // Follows the kernel's names of the open devices (RDMA netlink's, by
    // each device's kernel index): this process's libibverbs keeps the name
    // it first read, so a device renamed since is named here as it is now.
    void follow_names(const std::vector<kernel::RdmaLink>& links)
    {
        for (const auto& [name, d] : open_) {
            const auto index = verbs::kernel_index(d);
            if (!index)
                continue;
            const auto it = std::find_if(links.begin(), links.end(),
                                         [&](const kernel::RdmaLink& l) { return l.dev_index == *index; });
            if (it != links.end())
                now_named_[name] = it->dev_name;
        }
    }

    // The name the kernel gives the device this process's libibverbs lists as `name`.
    const std::string& shown(const std::string& name) const
    {
        const auto it = now_named_.find(name);
        return it == now_named_.end() ? name : it->second;
    }

    std::string stop_reason;  // set when the hooks' input stopped the wait

private:
    using Open = std::map<std::string, verbs::OpenDevice>;

    void read_events(const std::string& name)
    {
        auto it = open_.find(name);
        if (it == open_.end())
            return;
        const verbs::AsyncRead got = verbs::read_async_events(it->second.ctx.get());
        bool fatal = false;
        for (const auto& e : got.events) {
            emit_(watch::async_event_record(shown(name), e.type, e.port, wall_clock::now()));
            fatal = fatal || e.type == IBV_EVENT_DEVICE_FATAL;
        }
        if (got.ended)
            lose(it, fmt::format("its event file failed: {}", std::strerror(*got.ended)));
        else if (fatal)
            lose(it, "it reported DEVICE_FATAL");
    }

    void lose(Open::iterator& it, const std::string& why)
    {
        const std::string& name = shown(it->first);
        emit_(watch::watch_record(WatchKind::device_lost, Severity::error, name,
                                  fmt::format("the watch of {} ended: {}", name, why), wall_clock::now()));
        lost_.insert(it->first);
        it = open_.erase(it);
    }

    std::string only_;
    const std::function<void(const WatchRecord&)>& emit_;
    Open open_;
    std::set<std::string> refused_, unreadable_, lost_;  // each said once
    std::map<std::string, std::string> now_named_;       // libibverbs' name -> the kernel's now
};

template <class T, class F>
void keep_device(std::vector<T>& v, const std::string& device, F name_of)
{
    if (!device.empty())
        v.erase(std::remove_if(v.begin(), v.end(), [&](const T& x) { return name_of(x) != device; }), v.end());
}

// `before`: the last look's QPs, when it had them: a QP missing now is
// looked for again (kernel::confirm_missing), so a dump that skipped it is
// not a QP destroyed.
watch::HostLook look_at(Devices& devices, const std::string& only, const std::vector<kernel::KernelQp>* before)
{
    watch::HostLook look;
    devices.sync();
    look.ports = report::build_ports_report(devices.snapshots());
    try {
        const auto listed = [&only] {
            std::vector<kernel::KernelQp> qps = kernel::list_kernel_qps();
            keep_device(qps, only, [](const kernel::KernelQp& q) { return q.dev_name; });
            return qps;
        };
        look.qps = listed();
        if (before)
            kernel::confirm_missing(*look.qps, *before, listed);
    } catch (const std::runtime_error& e) {
        look.qps_error = e.what();
    }
    try {
        look.links = kernel::list_rdma_links();
        devices.follow_names(*look.links);
        for (auto& d : look.ports.devices)
            d.name = devices.shown(d.name);
        keep_device(*look.links, only, [](const kernel::RdmaLink& l) { return l.dev_name; });
    } catch (const std::runtime_error& e) {
        look.links_error = e.what();
    }
    try {
        look.cm_ids = kernel::list_cm_ids();
        keep_device(*look.cm_ids, only, [](const kernel::KernelCmId& c) { return c.dev_name; });
    } catch (const std::runtime_error& e) {
        look.cm_ids_error = e.what();
    }
    return look;
}

}  // namespace

void watch_host(const WatchQuery& query, const std::function<void(const WatchRecord&)>& emit, const WatchHooks& hooks)
{
    if (!query.device.empty())
        verbs::resolve_device(query.device);  // UsageError naming the devices there are
    const auto interval =
        std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(query.interval_s));
    std::optional<watch::MetricsExporter> exporter;
    if (query.metrics_at)
        exporter.emplace(*query.metrics_at);
    watch::RecordTally tally;
    // Every record goes out through here: counted for the metrics, and the
    // started record says where they are served.
    const std::function<void(const WatchRecord&)> write = [&](const WatchRecord& r) {
        tally.count(r);
        if (exporter && r.kind == WatchKind::started) {
            WatchRecord s = r;
            s.detail += fmt::format("; Prometheus metrics at {}", exporter->url());
            emit(s);
            return;
        }
        emit(r);
    };
    Devices devices(query.device, write);
    watch::HostWatch host;
    std::string why = "interrupted";
    steady::time_point due = steady::now();
    for (std::uint64_t n = 0;; ++n) {
        if (query.looks != 0 && n == query.looks) {
            why = fmt::format("{} look{} taken, the count asked for", n, n == 1 ? "" : "s");
            break;
        }
        if (n > 0) {
            due += interval;
            // A slow look (a loaded host) skips the ticks it overran.
            if (const auto now = steady::now(); due < now)
                due += interval * ((now - due) / interval + 1);
            if (devices.wait_for_events(due, hooks))
                break;
        }
        if (net::interrupt_pending())
            break;
        const watch::HostLook look = look_at(devices, query.device, host.last_qps());
        for (const auto& r : host.next(look, steady::now(), wall_clock::now()))
            write(r);
        if (hooks.on_look)
            hooks.on_look(look, steady::now());
        if (exporter) {
            report::MetricSet metrics;
            watch::add_watch_metrics(metrics, look, tally, n + 1);
            exporter->publish(std::move(metrics));
        }
    }
    if (net::interrupt_pending())
        why = net::interrupt_reason();
    else if (!devices.stop_reason.empty())
        why = devices.stop_reason;
    write(watch::watch_record(WatchKind::stopped, Severity::info, "", why, wall_clock::now()));
    net::clear_interrupt();  // Ctrl-C / SIGTERM end the watch: its normal end
}

}  // namespace qps::ops
