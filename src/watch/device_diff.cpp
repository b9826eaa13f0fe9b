#include "src/watch/device_diff.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/decode/async_event.hpp"
#include "src/decode/counters.hpp"
#include "src/decode/port.hpp"
#include "src/report/ports_watch.hpp"

namespace qps::watch {

namespace {

using decode::Severity;

const decode::AsyncEventEntry& async_entry(int type)
{
    const auto* e = decode::find_entry(decode::async_event_table, type);
    return *e;  // callers pass the table's own values
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
            WatchRecord r = blank_record(WatchKind::port_state, WatchSource::port, up ? Severity::info : Severity::error, ts);
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
            WatchRecord r = blank_record(kind, WatchSource::gid_table, severity, ts);
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
                WatchRecord r = blank_record(WatchKind::counter_rose, WatchSource::counters, severity, ts);
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
            WatchRecord r = blank_record(WatchKind::port_rate, WatchSource::counters, Severity::info, ts);
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
            WatchRecord r = blank_record(kind, WatchSource::rdma_link, severity, ts);
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

}  // namespace

void compare_devices(const report::PortsReport& before, const HostLook& look,
                     const std::optional<std::vector<kernel::RdmaLink>>& last_links, double elapsed_s,
                     const std::string& ts, std::vector<WatchRecord>& out)
{
    const auto renames = device_renames(before, look.ports, last_links, look.links);
    std::map<std::string, std::string> renamed_from;  // new name -> old name
    for (const auto& [old_name, new_name] : renames)
        renamed_from.emplace(new_name, old_name);
    for (const auto& d : before.devices)
        if (!find_device(look.ports, d.name) && !renames.count(d.name)) {
            WatchRecord r = blank_record(WatchKind::device_removed, WatchSource::device_list, Severity::warning, ts);
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
            WatchRecord r = blank_record(WatchKind::device_added, WatchSource::device_list, Severity::info, ts);
            r.device = d.name;
            r.detail = fmt::format("{} port{}, {}", d.ports.size(), d.ports.size() == 1 ? "" : "s",
                                   d.transport.name.value_or("?"));
            r.meaning = "a new RDMA device on the host";
            out.push_back(std::move(r));
            continue;
        }
        const auto index = index_of(look.links, d.name);
        if (old_name != renamed_from.end()) {
            WatchRecord r = blank_record(WatchKind::device_renamed, WatchSource::rdma_link, Severity::warning, ts);
            r.device = d.name;
            r.from = decode::Decoded::named(index.value_or(0), was_named);
            r.to = decode::Decoded::named(index.value_or(0), d.name);
            r.meaning = "the device has a new name (`rdma dev set`, a udev rule): its ports and QPs go on, but "
                        "whatever names it (-d, NCCL_IB_HCA, UCX_NET_DEVICES, a script) must use the new one";
            out.push_back(std::move(r));
        }
        NetdevRenames netdevs;
        if (index && index == index_of(last_links, was_named))
            netdevs = compare_netdevs(d.name, *index, *last_links, *look.links, ts, out);
        compare_ports(*b, d, elapsed_s, netdevs, ts, out);
    }
}

}  // namespace qps::watch
