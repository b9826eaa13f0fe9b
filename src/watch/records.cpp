#include "src/watch/records.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

#include "src/decode/qp.hpp"
#include "src/health/stuck.hpp"
#include "src/net/interfaces.hpp"
#include "src/report/kernel_qp.hpp"
#include "src/report/ports_watch.hpp"
#include "src/watch/device_diff.hpp"


namespace qps::watch {

namespace {

using decode::Severity;
using wall_clock = std::chrono::system_clock;


// A QP by its device's kernel index (the same through a rename) and its number.
using QpId = std::tuple<std::uint32_t, std::uint32_t>;

std::map<QpId, const kernel::KernelQp*> by_id(const std::vector<kernel::KernelQp>& qps)
{
    std::map<QpId, const kernel::KernelQp*> m;
    for (const auto& q : qps)
        m[{q.dev_index, q.lqpn}] = &q;
    return m;
}

// Where a QP or an rdma_cm ID is, and whose it is.
void place(WatchRecord& r, const std::string& device, std::uint32_t port, std::optional<std::uint32_t> qpn,
           std::optional<std::uint32_t> pid, const std::string& comm)
{
    r.device = device;
    if (port != 0)
        r.port = port;
    r.qpn = qpn;
    r.pid = pid;
    r.comm = comm;
}

WatchRecord qp_record(WatchKind kind, Severity severity, const kernel::KernelQp& q, const std::string& ts)
{
    const report::KernelQpReport view = report::kernel_qp_report(q);
    WatchRecord r = blank_record(kind, WatchSource::res_qp, severity, ts);
    place(r, q.dev_name, q.port, q.lqpn, q.pid, q.comm);
    r.qp_type = view.type;
    r.to = view.state;
    if (q.rqpn)
        r.detail = fmt::format("destination QPN {}", *q.rqpn);
    return r;
}

std::string cm_key(const kernel::KernelCmId& c)
{
    return fmt::format("{}|{}|{}|{}|{}", c.dev_name, c.id ? std::to_string(*c.id) : std::string(), c.src, c.dst,
                       c.pid ? std::to_string(*c.pid) : c.comm);
}

}  // namespace

WatchRecord blank_record(WatchKind kind, WatchSource source, Severity severity, const std::string& timestamp)
{
    WatchRecord r;
    r.kind = kind;
    r.source = source;
    r.severity = severity;
    r.timestamp = timestamp;
    return r;
}

std::string_view source_name(WatchSource source)
{
    switch (source) {
    case WatchSource::async_event: return "async_event";
    case WatchSource::device_list: return "device_list";
    case WatchSource::rdma_link: return "rdma_link";
    case WatchSource::port: return "port";
    case WatchSource::gid_table: return "gid_table";
    case WatchSource::res_qp: return "res_qp";
    case WatchSource::res_cm_id: return "res_cm_id";
    case WatchSource::counters: return "counters";
    case WatchSource::watch: return "watch";
    }
    return "unknown";
}

std::string_view kind_name(WatchKind kind)
{
    switch (kind) {
    case WatchKind::started: return "started";
    case WatchKind::async_event: return "async_event";
    case WatchKind::device_added: return "device_added";
    case WatchKind::device_removed: return "device_removed";
    case WatchKind::device_renamed: return "device_renamed";
    case WatchKind::netdev_attached: return "netdev_attached";
    case WatchKind::netdev_detached: return "netdev_detached";
    case WatchKind::netdev_renamed: return "netdev_renamed";
    case WatchKind::port_state: return "port_state";
    case WatchKind::gid_added: return "gid_added";
    case WatchKind::gid_removed: return "gid_removed";
    case WatchKind::gid_changed: return "gid_changed";
    case WatchKind::qp_created: return "qp_created";
    case WatchKind::qp_destroyed: return "qp_destroyed";
    case WatchKind::qp_state: return "qp_state";
    case WatchKind::qp_stalled: return "qp_stalled";
    case WatchKind::cm_id_state: return "cm_id_state";
    case WatchKind::counter_rose: return "counter_rose";
    case WatchKind::port_rate: return "port_rate";
    case WatchKind::look_failed: return "look_failed";
    case WatchKind::device_lost: return "device_lost";
    case WatchKind::stopped: return "stopped";
    }
    return "unknown";
}

WatchRecord async_event_record(const std::string& device, int event_type, std::optional<std::uint32_t> port,
                               wall_clock::time_point wall)
{
    WatchRecord r = blank_record(WatchKind::async_event, WatchSource::async_event, Severity::warning,
                           report::rfc3339_utc(wall));
    r.device = device;
    r.port = port;
    if (const auto* e = decode::find_entry(decode::async_event_table, event_type)) {
        r.event = decode::Decoded::named(event_type, std::string(e->name));
        r.severity = e->severity;
        r.meaning = std::string(e->meaning);
    } else {
        r.event = decode::Decoded::named(event_type, decode::unknown_name(event_type));
        r.event->known = false;
        r.meaning = "an asynchronous event this qpscope does not know (a newer kernel's): reported by its number";
    }
    return r;
}

WatchRecord watch_record(WatchKind kind, Severity severity, std::string device, std::string detail,
                         wall_clock::time_point wall)
{
    WatchRecord r = blank_record(kind, WatchSource::watch, severity, report::rfc3339_utc(wall));
    r.device = std::move(device);
    r.detail = std::move(detail);
    return r;
}

std::vector<WatchRecord> HostWatch::next(const HostLook& look, std::chrono::steady_clock::time_point now,
                                         wall_clock::time_point wall)
{
    const std::string ts = report::rfc3339_utc(wall);
    std::vector<WatchRecord> out;
    const double elapsed_s =
        last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;

    // A part that cannot be read is said once when it starts failing and
    // once when it reads again, not at every look.
    const auto failing = [&](const std::string& part, const std::string& error) {
        if (error.empty()) {
            if (failing_.erase(part)) {
                WatchRecord r = blank_record(WatchKind::look_failed, WatchSource::watch, Severity::info, ts);
                r.detail = part + " can be read again";
                out.push_back(std::move(r));
            }
            return;
        }
        if (failing_.insert(part).second) {
            WatchRecord r = blank_record(WatchKind::look_failed, WatchSource::watch, Severity::warning, ts);
            r.detail = part + ": " + error;
            r.meaning = "the watch goes on without it, and says when it can read it again";
            out.push_back(std::move(r));
        }
    };

    if (!last_ports_) {
        std::size_t ports = 0;
        for (const auto& d : look.ports.devices)
            ports += d.ports.size();
        WatchRecord r = blank_record(WatchKind::started, WatchSource::watch, Severity::info, ts);
        std::vector<std::string> names;
        for (const auto& d : look.ports.devices)
            names.push_back(d.name);
        const std::string devices = names.empty() ? std::string("no RDMA device yet (one added later is watched)")
                                                  : fmt::format("{} device{} ({})", names.size(),
                                                                names.size() == 1 ? "" : "s", fmt::join(names, ", "));
        r.detail = fmt::format("{}, {} port{}, {} QP{}, {} rdma_cm ID{}", devices, ports, ports == 1 ? "" : "s",
                               look.qps ? std::to_string(look.qps->size()) : std::string("?"),
                               look.qps && look.qps->size() == 1 ? "" : "s",
                               look.cm_ids ? std::to_string(look.cm_ids->size()) : std::string("?"),
                               look.cm_ids && look.cm_ids->size() == 1 ? "" : "s");
        r.meaning = "what the watch sees at its start; from now on each change is a record";
        out.push_back(std::move(r));
    } else {
        compare_devices(*last_ports_, look, last_links_, elapsed_s, ts, out);
    }

    failing("RDMA netlink's devices and ports", look.links ? std::string() : look.links_error);
    if (look.links)
        last_links_ = look.links;

    failing("RDMA netlink's QPs", look.qps ? std::string() : look.qps_error);
    if (look.qps) {
        if (last_qps_) {
            const auto was = by_id(*last_qps_);
            const auto is = by_id(*look.qps);
            for (const auto& [id, q] : was)
                if (!is.count(id)) {
                    WatchRecord r = qp_record(WatchKind::qp_destroyed, Severity::info, *q, ts);
                    r.meaning = "the QP was destroyed (its process closed it or ended)";
                    out.push_back(std::move(r));
                }
            for (const auto& [id, q] : is) {
                const auto old = was.find(id);
                if (old == was.end()) {
                    WatchRecord r = qp_record(WatchKind::qp_created, Severity::info, *q, ts);
                    r.meaning = "a new QP";
                    out.push_back(std::move(r));
                } else if (old->second->state != q->state) {
                    const bool error = q->state == IBV_QPS_ERR || q->state == IBV_QPS_SQE;
                    WatchRecord r = qp_record(WatchKind::qp_state, error ? Severity::error : Severity::info, *q, ts);
                    r.from = report::kernel_qp_report(*old->second).state;
                    const auto* m = decode::find_entry(decode::qp_state_meaning_table, q->state);
                    r.meaning = m ? std::string(m->meaning) : "a state this qpscope does not know";
                    out.push_back(std::move(r));
                }
            }
            // Stuck as doctor and `qp list --stalled` judge it, said once until it moves.
            std::set<QpId> stalled;
            const std::vector<kernel::KernelCmId> ids = look.cm_ids.value_or(std::vector<kernel::KernelCmId>{});
            for (const auto& v : health::judge_qps(*look.qps, *last_qps_, elapsed_s, ids, net::local_addresses()))
                if (v.stuck && !v.error_state) {
                    const QpId id{v.qp.dev_index, v.qp.lqpn};
                    stalled.insert(id);
                    if (stalled_.count(id))
                        continue;
                    WatchRecord r = qp_record(WatchKind::qp_stalled, Severity::error, v.qp, ts);
                    r.detail = fmt::format("{}", fmt::join(v.notes, "; "));
                    r.meaning = v.qp.pid ? "the QP's process may wait on it for ever: its destination is gone and "
                                           "nothing moved"
                                         : "the kernel consumer's I/O through it waits until the consumer recovers "
                                           "or gives up: its destination is gone and nothing moved";
                    out.push_back(std::move(r));
                }
            stalled_ = std::move(stalled);
        }
        last_qps_ = look.qps;
    }

    failing("RDMA netlink's rdma_cm IDs", look.cm_ids ? std::string() : look.cm_ids_error);
    if (look.cm_ids) {
        if (last_cm_ids_) {
            std::map<std::string, const kernel::KernelCmId*> was;
            for (const auto& c : *last_cm_ids_)
                was[cm_key(c)] = &c;
            for (const auto& c : *look.cm_ids) {
                const auto old = was.find(cm_key(c));
                if (old == was.end() || old->second->state == c.state)
                    continue;
                WatchRecord r = blank_record(WatchKind::cm_id_state, WatchSource::res_cm_id, Severity::info, ts);
                place(r, c.dev_name, c.port, c.lqpn, c.pid, c.comm);
                r.subject = c.dst.empty() ? c.src : c.src + " -> " + c.dst;
                r.from = decode::Decoded::named(old->second->state, kernel::cm_state_name(old->second->state));
                r.to = decode::Decoded::named(c.state, kernel::cm_state_name(c.state));
                r.meaning = "the rdma_cm ID's connection moved on";
                out.push_back(std::move(r));
            }
        }
        last_cm_ids_ = look.cm_ids;
    }

    last_ports_ = look.ports;
    last_time_ = now;
    return out;
}

}  // namespace qps::watch
