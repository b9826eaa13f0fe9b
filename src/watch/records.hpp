// `qpscope watch`'s records: what changed on the host's RDMA between two
// looks, and the asynchronous events in between, each with its time, its
// severity, what it is about and what it means (from the tables explain
// and doctor use: src/decode/, health/stuck.hpp). The comparison is pure
// (tested on the host); the loop that looks and waits for events is the
// operation's (src/ops/watch.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "src/decode/async_event.hpp"
#include "src/decode/decode.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/report/ports.hpp"

namespace qps::watch {

// Where a record came from.
enum class WatchSource {
    async_event,  // ibv_get_async_event on a context of the device
    device_list,  // the device list, compared with the previous look
    rdma_link,    // RDMA netlink's devices and their ports' netdevs (`rdma link show`), compared
    port,         // the port's attributes (ibv_query_port), compared
    gid_table,    // the GID table, compared
    res_qp,       // RDMA netlink's QPs of every process, compared
    res_cm_id,    // RDMA netlink's rdma_cm IDs, compared
    counters,     // the port's sysfs counters, compared
    watch,        // the watch itself: its start, a look that failed, its end
};
std::string_view source_name(WatchSource source);

// What a record says happened.
enum class WatchKind {
    started,         // the first look: what is watched
    async_event,     // an asynchronous event (event: its type)
    device_added,
    device_removed,
    device_renamed,   // from/to: the old and new name (raw: the device's kernel index)
    netdev_attached,  // to: the netdev now tied to the port (raw: its ifindex)
    netdev_detached,  // from: the netdev the port had
    netdev_renamed,   // from/to: the netdev's old and new name (the same ifindex)
    port_state,      // from/to: the port state
    gid_added,       // index, gid, and the entry's type and netdev in detail
    gid_removed,
    gid_changed,     // from/to: the GID text
    qp_created,
    qp_destroyed,
    qp_state,        // from/to: the QP state
    qp_stalled,      // RTS, its destination gone and no PSN moved since the last look (health/stuck.hpp)
    cm_id_state,     // from/to: the rdma_cm ID's state
    counter_rose,    // an error counter rose: subject its name, delta and rate
    port_rate,       // a port that moved packets since the last look: sent and received per second
    look_failed,     // a look could not read something (detail says what); the watch goes on
    device_lost,     // a device's event channel ended (the device was removed)
    stopped,         // the last record: why the watch ended
};
std::string_view kind_name(WatchKind kind);

struct WatchRecord {
    std::string timestamp;  // RFC 3339 UTC, milliseconds
    WatchKind kind = WatchKind::started;
    WatchSource source = WatchSource::watch;
    decode::Severity severity = decode::Severity::info;
    std::string device;     // empty: not about one device
    std::optional<std::uint32_t> port, qpn, pid, index;
    std::string comm;       // the QP's or ID's owner (a process, or a kernel module): bytes from outside
    std::optional<decode::Decoded> event;     // async_event: the event type, raw and named
    std::optional<decode::Decoded> from, to;  // a state change: before and after
    std::optional<decode::Decoded> qp_type;   // QP records
    std::string subject;    // a GID's text, a counter's name, an ID's addresses
    std::string detail;     // further facts, plain words
    std::optional<std::uint64_t> delta;       // counter_rose: the rise; port_rate: packets sent
    std::optional<double> per_second;         // counter_rose: the rise a second; port_rate: packets sent a second
    std::optional<std::uint64_t> received;    // port_rate: packets received
    std::optional<double> received_per_second;
    std::string meaning;    // what it means, from the tables explain and doctor use
};

// One look at the host: its devices and ports (attributes, GID tables,
// counters), and RDMA netlink's QPs and rdma_cm IDs. A part that could not
// be read is nullopt, with why.
struct HostLook {
    report::PortsReport ports;
    std::optional<std::vector<kernel::KernelQp>> qps;
    std::string qps_error;
    std::optional<std::vector<kernel::KernelCmId>> cm_ids;
    std::string cm_ids_error;
    std::optional<std::vector<kernel::RdmaLink>> links;  // each device's kernel index and its ports' netdevs
    std::string links_error;
};

// The record of one asynchronous event, read on `device`'s context.
// `port` for a port event, `element` the QP/CQ/SRQ/WQ number otherwise (a
// watch owns no QP, so it sees only port and device events in practice).
WatchRecord async_event_record(const std::string& device, int event_type, std::optional<std::uint32_t> port,
                               std::chrono::system_clock::time_point wall);

// A record of `kind` from `source` at `timestamp`, its other members empty.
WatchRecord blank_record(WatchKind kind, WatchSource source, decode::Severity severity, const std::string& timestamp);

// A record of the watch itself (started, look_failed, device_lost, stopped).
WatchRecord watch_record(WatchKind kind, decode::Severity severity, std::string device, std::string detail,
                         std::chrono::system_clock::time_point wall);

// Compares each look with the one before and returns what changed, in a
// fixed order: devices, ports, GIDs, counters, netdevs, QPs, rdma_cm IDs.
// A device is known by its kernel index where RDMA netlink gives one, so a
// device renamed between two looks is said renamed, not removed and added. The first
// look returns one `started` record that counts what is watched.
class HostWatch {
public:
    HostWatch() = default;
    std::vector<WatchRecord> next(const HostLook& look, std::chrono::steady_clock::time_point now,
                                  std::chrono::system_clock::time_point wall);
    // The QPs of the last look that read them (null before one did): what
    // the next look's QPs are compared with.
    const std::vector<kernel::KernelQp>* last_qps() const { return last_qps_ ? &*last_qps_ : nullptr; }

private:
    std::optional<report::PortsReport> last_ports_;  // the QPs and IDs are kept apart: a look may fail to read them
    std::optional<std::chrono::steady_clock::time_point> last_time_;
    std::optional<std::vector<kernel::KernelQp>> last_qps_;        // the last look that read them
    std::optional<std::vector<kernel::KernelCmId>> last_cm_ids_;
    std::optional<std::vector<kernel::RdmaLink>> last_links_;
    std::set<std::tuple<std::uint32_t, std::uint32_t>> stalled_;  // (device index, QPN) said stalled, until they move
    std::set<std::string> failing_;  // parts whose look failed last time (said once, not every look)
};

}  // namespace qps::watch
