#include <doctest/doctest.h>

#include "formatters/watch.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/watch/records.hpp"

using namespace qps;
using namespace qps::watch;
using namespace std::chrono_literals;

namespace {

using steady_tp = std::chrono::steady_clock::time_point;
const steady_tp t0{};
const auto wall0 = std::chrono::system_clock::time_point{} + 86400s * 20000;

report::GidReport gid_entry(std::uint32_t index, std::string gid, std::string netdev)
{
    report::GidReport g;
    g.index = index;
    g.gid = std::move(gid);
    g.type = decode::Decoded::named(2, "RoCE v2");
    g.netdev = std::move(netdev);
    return g;
}

kernel::CounterSet counter_set(std::vector<std::pair<std::string, std::uint64_t>> values)
{
    kernel::CounterSet s;
    s.present = true;
    for (auto& [name, v] : values)
        s.counters.push_back(kernel::Counter{name, v, ""});
    return s;
}

report::PortsReport host(int state, std::vector<report::GidReport> gids, std::uint64_t link_downed = 0,
                         std::uint64_t sent = 0, std::vector<std::string> more_devices = {})
{
    report::PortsReport r;
    report::DeviceReport d;
    d.name = "rxe0";
    report::PortReport p;
    p.port = 1;
    p.state = decode::port_state(state);
    p.gids = std::move(gids);
    p.hw_counters = counter_set({{"link_downed", link_downed}, {"sent_pkts", sent}, {"rcvd_pkts", sent / 2}});
    d.ports.push_back(p);
    r.devices.push_back(d);
    for (auto& name : more_devices) {
        report::DeviceReport more;
        more.name = name;
        r.devices.push_back(more);
    }
    return r;
}

kernel::KernelQp user_qp(std::uint32_t qpn, std::uint8_t state, std::uint32_t sq_psn = 100)
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.port = 1;
    q.lqpn = qpn;
    q.rqpn = 999;  // on no local device
    q.type = IBV_QPT_RC;
    q.state = state;
    q.sq_psn = sq_psn;
    q.rq_psn = 5;
    q.pid = 4242;
    q.comm = "ib_write_bw";
    return q;
}

HostLook look_of(report::PortsReport ports, std::vector<kernel::KernelQp> qps = {})
{
    HostLook l;
    l.ports = std::move(ports);
    l.qps = std::move(qps);
    l.cm_ids = std::vector<kernel::KernelCmId>{};
    return l;
}

std::vector<WatchKind> kinds(const std::vector<WatchRecord>& rs)
{
    std::vector<WatchKind> out;
    for (const auto& r : rs)
        out.push_back(r.kind);
    return out;
}

}  // namespace

TEST_CASE("watch: the first look says what is watched, and nothing else")
{
    HostWatch w;
    const auto rs = w.next(look_of(host(IBV_PORT_ACTIVE, {gid_entry(0, "fe80::1", "eth0")}), {user_qp(17, IBV_QPS_RTS)}),
                           t0, wall0);
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].kind == WatchKind::started);
    CHECK(rs[0].detail == "1 device (rxe0), 1 port, 1 QP, 0 rdma_cm IDs");
    CHECK(rs[0].timestamp.size() == 24);
}

TEST_CASE("watch: an unchanged host gives no record")
{
    HostWatch w;
    const auto h = look_of(host(IBV_PORT_ACTIVE, {gid_entry(0, "fe80::1", "eth0")}), {user_qp(17, IBV_QPS_INIT)});
    w.next(h, t0, wall0);
    CHECK(w.next(h, t0 + 1s, wall0 + 1s).empty());
}

TEST_CASE("watch: port down and up, with the meanings of PORT_ERR and PORT_ACTIVE")
{
    HostWatch w;
    w.next(look_of(host(IBV_PORT_ACTIVE, {})), t0, wall0);
    auto rs = w.next(look_of(host(IBV_PORT_DOWN, {}, 1)), t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::port_state, WatchKind::counter_rose});
    CHECK(rs[0].severity == decode::Severity::error);
    CHECK(*rs[0].from->name == "ACTIVE");
    CHECK(*rs[0].to->name == "DOWN");
    CHECK(rs[0].port == 1u);
    CHECK(rs[0].meaning == decode::find_entry(decode::async_event_table, IBV_EVENT_PORT_ERR)->meaning);
    CHECK(rs[1].subject == "link_downed");
    CHECK(rs[1].delta == 1u);
    CHECK(rs[1].per_second == doctest::Approx(1.0));
    CHECK(rs[1].severity == decode::Severity::error);
    CHECK(rs[1].meaning.find("times the link went down") == 0);
    rs = w.next(look_of(host(IBV_PORT_ACTIVE, {}, 1)), t0 + 3s, wall0 + 3s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::port_state});
    CHECK(rs[0].severity == decode::Severity::info);
    CHECK(rs[0].meaning == decode::find_entry(decode::async_event_table, IBV_EVENT_PORT_ACTIVE)->meaning);
}

TEST_CASE("watch: GID entries added, removed and changed, by index")
{
    HostWatch w;
    w.next(look_of(host(IBV_PORT_ACTIVE, {gid_entry(0, "fe80::1", "eth0"), gid_entry(1, "::ffff:192.0.2.1", "eth0")})),
           t0, wall0);
    const auto rs = w.next(
        look_of(host(IBV_PORT_ACTIVE, {gid_entry(0, "fe80::2", "eth0"), gid_entry(2, "::ffff:198.51.100.1", "eth0")})),
        t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::gid_changed, WatchKind::gid_removed, WatchKind::gid_added});
    CHECK(rs[0].index == 0u);
    CHECK(*rs[0].from->name == "fe80::1 (RoCE v2, netdev eth0)");
    CHECK(*rs[0].to->name == "fe80::2 (RoCE v2, netdev eth0)");
    CHECK(rs[1].index == 1u);
    CHECK(rs[1].subject == "::ffff:192.0.2.1");
    CHECK(rs[1].meaning.find("GID index 1 holds no GID now") == 0);
    CHECK(rs[2].index == 2u);
    CHECK(rs[2].severity == decode::Severity::info);
}

TEST_CASE("watch: devices added and removed, named from the device list")
{
    HostWatch w;
    w.next(look_of(host(IBV_PORT_ACTIVE, {})), t0, wall0);
    auto rs = w.next(look_of(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxe1"})), t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::device_added});
    CHECK(rs[0].device == "rxe1");
    CHECK(rs[0].source == WatchSource::device_list);
    rs = w.next(look_of(host(IBV_PORT_ACTIVE, {})), t0 + 2s, wall0 + 2s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::device_removed});
    CHECK(rs[0].device == "rxe1");
}

kernel::RdmaLink link(std::uint32_t dev_index, std::string device, std::string netdev, std::uint32_t ifindex)
{
    return kernel::RdmaLink{dev_index, std::move(device), 1, std::move(netdev),
                            ifindex ? std::optional<std::uint32_t>(ifindex) : std::nullopt};
}

HostLook look_with_links(report::PortsReport ports, std::vector<kernel::RdmaLink> links)
{
    HostLook l = look_of(std::move(ports));
    l.links = std::move(links);
    return l;
}

TEST_CASE("watch: a device renamed is said renamed (by its kernel index), not removed and added")
{
    HostWatch w;
    w.next(look_with_links(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxw8"}),
                           {link(1, "rxe0", "veth0", 2), link(3, "rxw8", "veth8", 12)}),
           t0, wall0);
    auto rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxw9"}),
                                     {link(1, "rxe0", "veth0", 2), link(3, "rxw9", "veth8", 12)}),
                     t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::device_renamed});
    CHECK(rs[0].device == "rxw9");
    CHECK(rs[0].source == WatchSource::rdma_link);
    REQUIRE(rs[0].from);
    REQUIRE(rs[0].to);
    CHECK(rs[0].from->name == "rxw8");
    CHECK(rs[0].to->name == "rxw9");
    CHECK(rs[0].to->raw == 3);
    CHECK(rs[0].meaning.find("new name") != std::string::npos);
    CHECK(formatters::watch_line(rs[0], false).find("device_renamed rxw8 -> rxw9") != std::string::npos);

    // Another device under the old index's name, later: added, not renamed.
    rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxw9", "rxw8"}),
                                {link(1, "rxe0", "veth0", 2), link(3, "rxw9", "veth8", 12), link(4, "rxw8", "veth7", 11)}),
                t0 + 2s, wall0 + 2s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::device_added});
    CHECK(rs[0].device == "rxw8");

    // Where RDMA netlink could not be read, the device list alone: removed, then added.
    HostWatch blind;
    blind.next(look_of(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxw8"})), t0, wall0);
    rs = blind.next(look_of(host(IBV_PORT_ACTIVE, {}, 0, 0, {"rxw9"})), t0 + 1s, wall0 + 1s);
    CHECK(kinds(rs) == std::vector{WatchKind::device_removed, WatchKind::device_added});
}

TEST_CASE("watch: a port's netdev renamed, detached and attached; its GIDs follow a rename without a record")
{
    HostWatch w;
    w.next(look_with_links(host(IBV_PORT_ACTIVE, {gid_entry(1, "::ffff:192.0.2.1", "veth0")}),
                           {link(1, "rxe0", "veth0", 2)}),
           t0, wall0);
    // Renamed: the same ifindex. The GID entry names the new netdev: not a GID change.
    auto rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {gid_entry(1, "::ffff:192.0.2.1", "lab0")}),
                                     {link(1, "rxe0", "lab0", 2)}),
                     t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::netdev_renamed});
    CHECK(rs[0].device == "rxe0");
    CHECK(rs[0].port == 1u);
    CHECK(rs[0].from->name == "veth0");
    CHECK(rs[0].to->name == "lab0");
    CHECK(rs[0].to->raw == 2);
    CHECK(rs[0].severity == decode::Severity::info);

    // Detached: the port has none, and its GID went with it.
    rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}), {link(1, "rxe0", "", 0)}), t0 + 2s, wall0 + 2s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::netdev_detached, WatchKind::gid_removed});
    CHECK(rs[0].from->name == "lab0");
    CHECK_FALSE(rs[0].to);
    CHECK(rs[0].severity == decode::Severity::warning);
    CHECK(formatters::watch_line(rs[0], false).find("netdev_detached lab0") != std::string::npos);

    // Attached again, then another netdev in its place: detached and attached.
    rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}), {link(1, "rxe0", "lab0", 2)}), t0 + 3s, wall0 + 3s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::netdev_attached});
    CHECK(rs[0].to->name == "lab0");
    rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}), {link(1, "rxe0", "bond0", 9)}), t0 + 4s, wall0 + 4s);
    CHECK(kinds(rs) == std::vector{WatchKind::netdev_detached, WatchKind::netdev_attached});

    // A netdev's name is bytes from outside: escaped in the text line.
    rs = w.next(look_with_links(host(IBV_PORT_ACTIVE, {}), {link(1, "rxe0", "evil\x1b[2J", 9)}), t0 + 5s, wall0 + 5s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::netdev_renamed});
    CHECK(formatters::watch_line(rs[0], false).find('\x1b') == std::string::npos);
}

TEST_CASE("watch: RDMA netlink's devices that cannot be read are said once; the rest goes on")
{
    HostWatch w;
    w.next(look_with_links(host(IBV_PORT_ACTIVE, {}), {link(1, "rxe0", "veth0", 2)}), t0, wall0);
    HostLook failed = look_of(host(IBV_PORT_DOWN, {}));
    failed.links_error = "RDMA netlink RDMA_NLDEV_CMD_GET dump: EPERM";
    auto rs = w.next(failed, t0 + 1s, wall0 + 1s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::port_state, WatchKind::look_failed});
    CHECK(rs[1].detail.find("RDMA netlink's devices and ports: ") == 0);
    rs = w.next(failed, t0 + 2s, wall0 + 2s);
    CHECK(rs.empty());
    rs = w.next(look_with_links(host(IBV_PORT_DOWN, {}), {link(1, "rxe0", "veth0", 2)}), t0 + 3s, wall0 + 3s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::look_failed});
    CHECK(rs[0].detail.find("can be read again") != std::string::npos);
}

TEST_CASE("watch: the port's packet rate over the time between looks")
{
    HostWatch w;
    w.next(look_of(host(IBV_PORT_ACTIVE, {}, 0, 1000)), t0, wall0);
    const auto rs = w.next(look_of(host(IBV_PORT_ACTIVE, {}, 0, 5000)), t0 + 2s, wall0 + 2s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::port_rate});
    CHECK(rs[0].delta == 4000u);
    CHECK(rs[0].per_second == doctest::Approx(2000.0));
    CHECK(rs[0].received == 2000u);
    CHECK(rs[0].received_per_second == doctest::Approx(1000.0));
}

TEST_CASE("watch: QPs created, changing state, stalled once, destroyed, with their owner")
{
    HostWatch w;
    const auto ports = host(IBV_PORT_ACTIVE, {});
    w.next(look_of(ports, {user_qp(17, IBV_QPS_RTS)}), t0, wall0);
    auto rs = w.next(look_of(ports, {user_qp(17, IBV_QPS_RTS), user_qp(18, IBV_QPS_INIT)}), t0 + 1s, wall0 + 1s);
    // 17: RTS, its destination on no local device, no PSN moved: stalled.
    REQUIRE(kinds(rs) == std::vector{WatchKind::qp_created, WatchKind::qp_stalled});
    CHECK(rs[0].qpn == 18u);
    CHECK(rs[0].pid == 4242u);
    CHECK(rs[0].comm == "ib_write_bw");
    CHECK(*rs[0].qp_type->name == "RC");
    CHECK(rs[1].qpn == 17u);
    CHECK(rs[1].severity == decode::Severity::error);
    // Still stalled: not said again.
    rs = w.next(look_of(ports, {user_qp(17, IBV_QPS_RTS), user_qp(18, IBV_QPS_INIT)}), t0 + 2s, wall0 + 2s);
    CHECK(rs.empty());
    rs = w.next(look_of(ports, {user_qp(17, IBV_QPS_ERR)}), t0 + 3s, wall0 + 3s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::qp_destroyed, WatchKind::qp_state});
    CHECK(rs[0].qpn == 18u);
    CHECK(rs[1].qpn == 17u);
    CHECK(*rs[1].from->name == "RTS");
    CHECK(*rs[1].to->name == "ERR");
    CHECK(rs[1].severity == decode::Severity::error);
    CHECK(rs[1].meaning.find("ERR: the QP failed") == 0);
}

TEST_CASE("watch: a part that cannot be read is said once, and again when it reads")
{
    HostWatch w;
    HostLook bad = look_of(host(IBV_PORT_ACTIVE, {}));
    bad.qps.reset();
    bad.qps_error = "socket(NETLINK_RDMA): Protocol not supported";
    auto rs = w.next(bad, t0, wall0);
    REQUIRE(kinds(rs) == std::vector{WatchKind::started, WatchKind::look_failed});
    CHECK(rs[0].detail == "1 device (rxe0), 1 port, ? QPs, 0 rdma_cm IDs");
    CHECK(rs[1].detail == "RDMA netlink's QPs: socket(NETLINK_RDMA): Protocol not supported");
    CHECK(w.next(bad, t0 + 1s, wall0 + 1s).empty());
    rs = w.next(look_of(host(IBV_PORT_ACTIVE, {})), t0 + 2s, wall0 + 2s);
    REQUIRE(kinds(rs) == std::vector{WatchKind::look_failed});
    CHECK(rs[0].detail == "RDMA netlink's QPs can be read again");
}

TEST_CASE("watch: an asynchronous event, known or not")
{
    const WatchRecord known = async_event_record("rxe0", IBV_EVENT_GID_CHANGE, 1u, wall0);
    CHECK(known.kind == WatchKind::async_event);
    CHECK(known.source == WatchSource::async_event);
    CHECK(*known.event->name == "GID_CHANGE");
    CHECK(known.severity == decode::Severity::warning);
    CHECK(known.meaning.find("GID table changed") != std::string::npos);
    const WatchRecord unknown = async_event_record("rxe0", 77, std::nullopt, wall0);
    CHECK(unknown.event->raw == 77);
    CHECK_FALSE(unknown.event->known);
    CHECK(*unknown.event->name == "UNKNOWN(0x4d)");
    CHECK(unknown.meaning.find("reported by its number") != std::string::npos);
}

TEST_CASE("watch: the text line names the time, severity, place, kind and meaning")
{
    HostWatch w;
    w.next(look_of(host(IBV_PORT_ACTIVE, {})), t0, wall0);
    const auto rs = w.next(look_of(host(IBV_PORT_DOWN, {})), t0 + 1s, wall0 + 1s);
    REQUIRE(rs.size() == 1);
    const std::string line = formatters::watch_line(rs[0], false);
    CHECK(line.find("00:00:01.000  ERROR    rxe0/1   port_state     ACTIVE -> DOWN") == 0);
    CHECK(line.find(": the port left ACTIVE") != std::string::npos);
    const std::string coloured = formatters::watch_line(rs[0], true);
    CHECK(coloured.find("\033[31m") == 0);
    // Bytes from outside are escaped.
    WatchRecord q;
    q.kind = WatchKind::qp_created;
    q.pid = 1;
    q.comm = "evil\x1b[2J";
    CHECK(formatters::watch_line(q, false).find('\x1b') == std::string::npos);
}
