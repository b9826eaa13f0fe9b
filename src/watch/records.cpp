#include "src/watch/records.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

#include "src/decode/counters.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/health/stuck.hpp"
#include "src/report/kernel_qp.hpp"
#include "src/report/ports_watch.hpp"

namespace qps::watch {

namespace {

using decode::Severity;
using wall_clock = std::chrono::system_clock;

const decode::AsyncEventEntry& async_entry(int type)
{
    const auto* e = decode::find_entry(decode::async_event_table, type);
    return *e;  // callers pass the table's own values
}

WatchRecord record(WatchKind kind, WatchSource source, Severity severity, const std::string& timestamp)
{
    WatchRecord r;
    r.kind = kind;
    r.source = source;
    r.severity = severity;
    r.timestamp = timestamp;
    return r;
}

std::string gid_detail(const report::GidReport& g)
{
    std::string s = g.type ? *g.type->name : std::string("type unknown");
    if (!g.netdev.empty())
        s += ", netdev " + g.netdev;
    if (g.ipv4)
        s += ", " + *g.ipv4;
    return s;
}

// The ports of a device report by number.
const report::PortReport* find_port(const report::DeviceReport& d, std::uint32_t port)
{
    for (const auto& p : d.ports)
        if (p.port == port)
            return &p;
    return nullptr;
}

const report::DeviceReport* find_device(const report::PortsReport& r, const std::string& name)
{
    for (const auto& d : r.devices)
        if (d.name == name)
            return &d;
    return nullptr;
}

// Netdevs renamed between two looks, old name -> new name (the same ifindex).
using NetdevRenames = std::map<std::string, std::string>;

// A GID entry the same in two looks, its netdev's rename aside.
bool same_gid_entry(const report::GidReport& was, const report::GidReport& is, const NetdevRenames& renamed)
{
    if (was.gid != is.gid)
        return false;
    report::GidReport w = was;
    if (const auto it = renamed.find(w.netdev); it != renamed.end())
        w.netdev = it->second;
    return gid_detail(w) == gid_detail(is);
}

void compare_ports(const report::DeviceReport& before, const report::DeviceReport& now, double elapsed_s,
                   const NetdevRenames& renamed, const std::string& ts, std::vector<WatchRecord>& out)
{
    for (const auto& p : now.ports) {
        const report::PortReport* b = find_port(before, p.port);
        if (!b)
            continue;
        if (b->state.raw != p.state.raw) {
            const bool up = p.state.raw == IBV_PORT_ACTIVE;
            const auto& meaning = async_entry(up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR);
            WatchRecord r = record(WatchKind::port_state, WatchSource::port, up ? Severity::info : Severity::error, ts);
            r.device = now.name;
            r.port = p.port;
            r.from = b->state;
            r.to = p.state;
            r.detail = fmt::format("physical state {}", p.phys_state.name.value_or("?"));
            r.meaning = up || b->state.raw == IBV_PORT_ACTIVE ? std::string(meaning.meaning)
                                                                : "the port changed state, and is not ACTIVE";
            out.push_back(std::move(r));
        }
        // GIDs by index.
        std::map<std::uint32_t, const report::GidReport*> was, is;
        for (const auto& g : b->gids)
            if (g.error.empty())
                was[g.index] = &g;
        for (const auto& g : p.gids)
            if (g.error.empty())
                is[g.index] = &g;
        const auto gid_record = [&](WatchKind kind, Severity severity, const report::GidReport& g) {
            WatchRecord r = record(kind, WatchSource::gid_table, severity, ts);
            r.device = now.name;
            r.port = p.port;
            r.index = g.index;
            r.subject = g.gid;
            r.detail = gid_detail(g);
            return r;
        };
        const std::string_view drift = async_entry(IBV_EVENT_GID_CHANGE).meaning;
        for (const auto& [index, g] : was) {
            const auto it = is.find(index);
            if (it == is.end()) {
                WatchRecord r = gid_record(WatchKind::gid_removed, Severity::warning, *g);
                r.meaning = fmt::format("GID index {} holds no GID now: {}", index, drift);
                out.push_back(std::move(r));
            } else if (!same_gid_entry(*g, *it->second, renamed)) {
                WatchRecord r = gid_record(WatchKind::gid_changed, Severity::warning, *it->second);
                r.from = decode::Decoded::named(index, g->gid + " (" + gid_detail(*g) + ")");
                r.to = decode::Decoded::named(index, it->second->gid + " (" + gid_detail(*it->second) + ")");
                r.meaning = fmt::format("GID index {} names another GID now: {}", index, drift);
                out.push_back(std::move(r));
            }
        }
        for (const auto& [index, g] : is)
            if (!was.count(index)) {
                WatchRecord r = gid_record(WatchKind::gid_added, Severity::info, *g);
                r.meaning = fmt::format("a new GID at index {}: connections may use it from now", index);
                out.push_back(std::move(r));
            }
        // Error counters that rose, explained as doctor explains them.
        const auto rose = [&](const kernel::CounterSet& then, const kernel::CounterSet& nowset) {
            for (const auto& c : nowset.counters) {
                const auto info = decode::error_counter(c.name);
                if (!info || !c.value)
                    continue;
                const auto old = std::find_if(then.counters.begin(), then.counters.end(),
                                              [&](const kernel::Counter& o) { return o.name == c.name; });
                if (old == then.counters.end() || !old->value || *c.value <= *old->value)
                    continue;
                const Severity severity = info->severity == decode::CounterSeverity::fail   ? Severity::error
                                          : info->severity == decode::CounterSeverity::warn ? Severity::warning
                                                                                            : Severity::info;
                WatchRecord r = record(WatchKind::counter_rose, WatchSource::counters, severity, ts);
                r.device = now.name;
                r.port = p.port;
                r.subject = c.name;
                r.delta = *c.value - *old->value;
                if (elapsed_s > 0)
                    r.per_second = static_cast<double>(*r.delta) / elapsed_s;
                r.detail = fmt::format("{} -> {}", *old->value, *c.value);
                r.meaning = fmt::format("{}: {}", info->meaning, info->check);
                out.push_back(std::move(r));
            }
        };
        rose(b->counters, p.counters);
        rose(b->hw_counters, p.hw_counters);
        // The port's packets since the last look, when it moved any.
        const auto moved = kernel::packets_since(kernel::packet_counts(b->hw_counters, b->counters),
                                                 kernel::packet_counts(p.hw_counters, p.counters));
        if ((moved.sent && *moved.sent > 0) || (moved.received && *moved.received > 0)) {
            WatchRecord r = record(WatchKind::port_rate, WatchSource::counters, Severity::info, ts);
            r.device = now.name;
            r.port = p.port;
            r.delta = moved.sent;
            r.received = moved.received;
            if (elapsed_s > 0) {
                if (moved.sent)
                    r.per_second = static_cast<double>(*moved.sent) / elapsed_s;
                if (moved.received)
                    r.received_per_second = static_cast<double>(*moved.received) / elapsed_s;
            }
            r.meaning = "packets the port sent and received since the last look";
            out.push_back(std::move(r));
        }
    }
}

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

std::optional<std::uint32_t> index_of(const std::optional<std::vector<kernel::RdmaLink>>& links,
                                      const std::string& device)
{
    if (links)
        for (const auto& l : *links)
            if (l.dev_name == device)
                return l.dev_index;
    return std::nullopt;
}

// Devices renamed between two looks, old name -> new name: RDMA netlink has
// the old name's kernel index under a new name, the old name has left the
// device list and the new one was not in it before. (The kernel does not
// hand a device's index to another one soon: it allocates them cyclically.)
std::map<std::string, std::string> device_renames(const report::PortsReport& before, const report::PortsReport& now,
                                                  const std::optional<std::vector<kernel::RdmaLink>>& was,
                                                  const std::optional<std::vector<kernel::RdmaLink>>& is)
{
    std::map<std::string, std::string> out;
    if (!was || !is)
        return out;
    for (const auto& d : before.devices) {
        const auto index = index_of(was, d.name);
        if (!index || find_device(now, d.name))
            continue;
        const auto it = std::find_if(is->begin(), is->end(), [&](const kernel::RdmaLink& l) { return l.dev_index == *index; });
        if (it != is->end() && it->dev_name != d.name && find_device(now, it->dev_name) &&
            !find_device(before, it->dev_name))
            out.emplace(d.name, it->dev_name);
    }
    return out;
}

// The netdev of each port of one device (by its kernel index), in two
// looks: attached, detached or renamed. Returns the renames, which the
// device's GID entries follow.
NetdevRenames compare_netdevs(const std::string& device, std::uint32_t index, const std::vector<kernel::RdmaLink>& was,
                              const std::vector<kernel::RdmaLink>& is, const std::string& ts,
                              std::vector<WatchRecord>& out)
{
    NetdevRenames renamed;
    for (const auto& n : is) {
        if (n.dev_index != index)
            continue;
        const auto b = std::find_if(was.begin(), was.end(), [&](const kernel::RdmaLink& l) {
            return l.dev_index == index && l.port == n.port;
        });
        if (b == was.end() || (b->netdev == n.netdev && b->netdev_index == n.netdev_index))
            continue;  // a new port (its device's record says it), or the same netdev
        const auto netdev_record = [&](WatchKind kind, Severity severity) {
            WatchRecord r = record(kind, WatchSource::rdma_link, severity, ts);
            r.device = device;
            r.port = n.port;
            return r;
        };
        const auto named = [](const kernel::RdmaLink& l) {
            return decode::Decoded::named(l.netdev_index.value_or(0), l.netdev);
        };
        if (!b->netdev.empty() && !n.netdev.empty() && b->netdev_index && b->netdev_index == n.netdev_index) {
            WatchRecord r = netdev_record(WatchKind::netdev_renamed, Severity::info);
            r.from = named(*b);
            r.to = named(n);
            r.meaning = "the port's netdev has a new name (the same interface): its GIDs stay, but whatever names "
                        "the netdev (NCCL_SOCKET_IFNAME, UCX_NET_DEVICES, a script) must follow";
            renamed.emplace(b->netdev, n.netdev);
            out.push_back(std::move(r));
            continue;
        }
        if (!b->netdev.empty()) {
            WatchRecord r = netdev_record(WatchKind::netdev_detached, Severity::warning);
            r.from = named(*b);
            r.meaning = "the port has lost its netdev: on RoCE its GIDs went with it and new connections cannot "
                        "resolve an address through it; on InfiniBand its IPoIB interface is gone";
            out.push_back(std::move(r));
        }
        if (!n.netdev.empty()) {
            WatchRecord r = netdev_record(WatchKind::netdev_attached, Severity::info);
            r.to = named(n);
            r.meaning = "the port has a netdev now: on RoCE its GIDs come from that netdev's addresses";
            out.push_back(std::move(r));
        }
    }
    return renamed;
}

WatchRecord qp_record(WatchKind kind, Severity severity, const kernel::KernelQp& q, const std::string& ts)
{
    const report::KernelQpReport view = report::kernel_qp_report(q);
    WatchRecord r = record(kind, WatchSource::res_qp, severity, ts);
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
    WatchRecord r = record(WatchKind::async_event, WatchSource::async_event, Severity::warning,
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
    WatchRecord r = record(kind, WatchSource::watch, severity, report::rfc3339_utc(wall));
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
                WatchRecord r = record(WatchKind::look_failed, WatchSource::watch, Severity::info, ts);
                r.detail = part + " can be read again";
                out.push_back(std::move(r));
            }
            return;
        }
        if (failing_.insert(part).second) {
            WatchRecord r = record(WatchKind::look_failed, WatchSource::watch, Severity::warning, ts);
            r.detail = part + ": " + error;
            r.meaning = "the watch goes on without it, and says when it can read it again";
            out.push_back(std::move(r));
        }
    };

    if (!last_ports_) {
        std::size_t ports = 0;
        for (const auto& d : look.ports.devices)
            ports += d.ports.size();
        WatchRecord r = record(WatchKind::started, WatchSource::watch, Severity::info, ts);
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
        const report::PortsReport& before = *last_ports_;
        const auto renames = device_renames(before, look.ports, last_links_, look.links);
        std::map<std::string, std::string> renamed_from;  // new name -> old name
        for (const auto& [old_name, new_name] : renames)
            renamed_from.emplace(new_name, old_name);
        for (const auto& d : before.devices)
            if (!find_device(look.ports, d.name) && !renames.count(d.name)) {
                WatchRecord r = record(WatchKind::device_removed, WatchSource::device_list, Severity::warning, ts);
                r.device = d.name;
                r.meaning = "the device left the host (driver unloaded, `rdma link delete`, a reset): its QPs and "
                            "their connections are gone";
                out.push_back(std::move(r));
            }
        for (const auto& d : look.ports.devices) {
            const auto old_name = renamed_from.find(d.name);
            const std::string& was_named = old_name == renamed_from.end() ? d.name : old_name->second;
            const report::DeviceReport* b = find_device(before, was_named);
            if (!b) {
                WatchRecord r = record(WatchKind::device_added, WatchSource::device_list, Severity::info, ts);
                r.device = d.name;
                r.detail = fmt::format("{} port{}, {}", d.ports.size(), d.ports.size() == 1 ? "" : "s",
                                       d.transport.name.value_or("?"));
                r.meaning = "a new RDMA device on the host";
                out.push_back(std::move(r));
                continue;
            }
            const auto index = index_of(look.links, d.name);
            if (old_name != renamed_from.end()) {
                WatchRecord r = record(WatchKind::device_renamed, WatchSource::rdma_link, Severity::warning, ts);
                r.device = d.name;
                r.from = decode::Decoded::named(index.value_or(0), was_named);
                r.to = decode::Decoded::named(index.value_or(0), d.name);
                r.meaning = "the device has a new name (`rdma dev set`, a udev rule): its ports and QPs go on, but "
                            "whatever names it (-d, NCCL_IB_HCA, UCX_NET_DEVICES, a script) must use the new one";
                out.push_back(std::move(r));
            }
            NetdevRenames netdevs;
            if (index && index == index_of(last_links_, was_named))
                netdevs = compare_netdevs(d.name, *index, *last_links_, *look.links, ts, out);
            compare_ports(*b, d, elapsed_s, netdevs, ts, out);
        }
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
            for (const auto& v : health::judge_qps(*look.qps, *last_qps_, elapsed_s, ids))
                if (v.stuck && !v.error_state) {
                    const QpId id{v.qp.dev_index, v.qp.lqpn};
                    stalled.insert(id);
                    if (stalled_.count(id))
                        continue;
                    WatchRecord r = qp_record(WatchKind::qp_stalled, Severity::error, v.qp, ts);
                    r.detail = fmt::format("{}", fmt::join(v.notes, "; "));
                    r.meaning = "the QP's process may wait on it for ever: its destination is gone and nothing moved";
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
                WatchRecord r = record(WatchKind::cm_id_state, WatchSource::res_cm_id, Severity::info, ts);
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
