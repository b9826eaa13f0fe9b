// doctor's port checks: --expect parsing, the link against it, a routable
// RoCE v2 GID, and the RoCE MTU explained from the netdev MTU.
#include <cerrno>
#include <doctest/doctest.h>
#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/health/port_checks.hpp"
#include "unit/util.hpp"

using namespace qps::health;
using namespace qps::host;
using qps::test::contains;
using qps::test::thrown;

namespace {

LinkFacts ib_link()
{
    LinkFacts l;
    l.device = "mlx5_0";
    l.port = 1;
    l.width = "4X";
    l.speed = "NDR";
    l.rate_gbps = 400;
    l.active_mtu = 4096;
    l.max_mtu = 4096;
    return l;
}

LinkFacts rxe_link()
{
    LinkFacts l;
    l.device = "rxe0";
    l.port = 1;
    l.width = "1X";
    l.speed = "SDR";
    l.rate_gbps = 2.5;
    l.active_mtu = 1024;
    l.max_mtu = 4096;
    l.ethernet = true;
    l.netdev = "veth0";
    return l;
}

}  // namespace

TEST_CASE("--expect: every key, case-insensitive widths and speeds, and one-line errors")
{
    const Expect e = parse_expect("rate=400, mtu=4096,width=4x,speed=ndr,loopback_gbps=12.5");
    CHECK(e.rate_gbps == 400.0);
    CHECK(e.mtu == 4096u);
    CHECK(e.width == "4X");
    CHECK(e.speed == "NDR");
    CHECK(e.loopback_gbps == 12.5);
    CHECK_FALSE(parse_expect("").rate_gbps);

    CHECK(thrown<qps::UsageError>([] { parse_expect("speed=fast"); }) ==
          "--expect speed=fast: valid are SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR");
    CHECK(thrown<qps::UsageError>([] { parse_expect("mtu=1500"); }) ==
          "--expect mtu=1500: valid are 256, 512, 1024, 2048, 4096");
    CHECK(contains(thrown<qps::UsageError>([] { parse_expect("bandwidth=1"); }),
                   "unknown key 'bandwidth' (keys: rate, mtu, width, speed, loopback_gbps)"));
    CHECK(contains(thrown<qps::UsageError>([] { parse_expect("rate"); }), "write KEY=VALUE"));
    CHECK(contains(thrown<qps::UsageError>([] { parse_expect("rate=-5"); }), "not a positive number"));
    CHECK(contains(thrown<qps::UsageError>([] { parse_expect("width=3X"); }), "valid are 1X, 4X, 8X, 12X, 2X"));
}

TEST_CASE("link: ok without --expect, fail naming each shortfall with it")
{
    const Finding plain = check_link(ib_link(), {});
    CHECK(plain.status == Status::ok);
    CHECK(plain.summary == "mlx5_0 port 1 runs 4X NDR (400 Gb/s), active MTU 4096");

    LinkFacts degraded = ib_link();
    degraded.width = "2X";
    degraded.rate_gbps = 200;
    const Finding f = check_link(degraded, parse_expect("rate=400,width=4X,mtu=4096"));
    CHECK(f.failed());
    CHECK(f.id == "port.link");
    CHECK(contains(f.summary, "rate 200 Gb/s below the expected 400 Gb/s"));
    CHECK(contains(f.summary, "width 2X instead of 4X"));
    CHECK_FALSE(contains(f.summary, "MTU 4096 below"));
    CHECK(contains(f.fix, "cable"));

    CHECK(check_link(ib_link(), parse_expect("rate=400,width=4X,speed=NDR,mtu=4096")).status == Status::ok);
    LinkFacts small_mtu = ib_link();
    small_mtu.active_mtu = 2048;
    const Finding m = check_link(small_mtu, parse_expect("mtu=4096"));
    CHECK(m.failed());
    CHECK(contains(m.fix, "subnet manager"));
}

TEST_CASE("RoCE v2 GID: routable IPv4, link-local only, none")
{
    const std::vector<GidEntry> lab{{0, "fe80:0000:0000:0000:b424:3aff:fe11:d22e", "RoCE v2", "veth0", "", true},
                                    {1, "0000:0000:0000:0000:0000:ffff:c000:0201", "RoCE v2", "veth0", "192.0.2.1",
                                     false}};
    const Finding ok = check_roce_gid("rxe0", 1, lab, "veth0");
    CHECK(ok.status == Status::ok);
    CHECK(contains(ok.summary, "index 1 (192.0.2.1)"));

    const Finding ll = check_roce_gid("rxe0", 1, {lab[0]}, "veth0");
    CHECK(ll.status == Status::warn);
    CHECK(contains(ll.summary, "link-local IPv6 only"));
    CHECK(ll.fix == "add an address to veth0: ip addr add ADDR/LEN dev veth0");

    // A RoCE v1 GID with an address does not count.
    const std::vector<GidEntry> v1{{2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1", "eth2", "10.0.0.1",
                                    false}};
    CHECK(contains(check_roce_gid("mlx5_1", 1, v1, "eth2").summary, "has no RoCE v2 GID"));
}

TEST_CASE("RoCE MTU: from the netdev MTU, the next step, and --expect mtu")
{
    CHECK(rdma_mtu_for_netdev(1500, 4096, "rxe") == 1024);
    CHECK(rdma_mtu_for_netdev(2128, 4096, "rxe") == 2048);
    CHECK(rdma_mtu_for_netdev(2127, 4096, "rxe") == 1024);
    CHECK(rdma_mtu_for_netdev(9000, 4096, "mlx5_core") == 4096);
    CHECK(rdma_mtu_for_netdev(9000, 1024, "mlx5_core") == 1024);
    CHECK(rdma_mtu_for_netdev(300, 4096, "rxe") == 0);

    const Finding f = explain_roce_mtu(rxe_link(), 1500, "rxe", std::nullopt);
    CHECK(f.status == Status::ok);
    CHECK(f.summary == "rxe0 port 1 active MTU 1024: netdev veth0 MTU 1500 leaves 1420 bytes after rxe's 80 "
                       "header bytes; netdev MTU 2128 would give 2048");

    const Finding want = explain_roce_mtu(rxe_link(), 1500, "rxe", 4096u);
    CHECK(want.failed());
    CHECK(contains(want.fix, "ip link set veth0 mtu 4176"));

    LinkFacts top = rxe_link();
    top.active_mtu = 4096;
    CHECK(contains(explain_roce_mtu(top, 9000, "mlx5_core", 4096u).summary, "that is the port's largest"));
    CHECK(explain_roce_mtu(top, 9000, "mlx5_core", 4096u).status == Status::ok);
}

TEST_CASE("GID kind against the destination: addresses classified")
{
    using qps::decode::GidKind;
    const auto v4 = classify_address("192.0.2.1");
    REQUIRE(v4);
    CHECK(v4->kind == GidKind::ipv4);
    CHECK_FALSE(v4->loopback);
    CHECK(classify_address("127.0.0.1")->loopback);
    CHECK(classify_address("127.1.2.3")->loopback);
    CHECK(classify_address("::1")->loopback);
    CHECK(classify_address("::1")->kind == GidKind::ipv6_global);
    CHECK(classify_address("2001:db8::1")->kind == GidKind::ipv6_global);
    CHECK(classify_address("fe80::1%veth0")->kind == GidKind::ipv6_link_local);
    CHECK(classify_address("::ffff:192.0.2.1")->kind == GidKind::ipv4);
    CHECK_FALSE(classify_address("peer.example"));

    // A remote address wants its own kind; a loopback one any routable kind,
    // its family's first; several addresses in their order.
    const Destination remote{"192.0.2.2", {*classify_address("192.0.2.2")}};
    CHECK(gid_kinds_for(remote) == std::vector<GidKind>{GidKind::ipv4});
    const Destination local{"localhost", {*classify_address("::1"), *classify_address("127.0.0.1")}};
    CHECK(gid_kinds_for(local) == std::vector<GidKind>{GidKind::ipv6_global, GidKind::ipv4, GidKind::ipv6_link_local});
    const Destination self{"127.0.0.1", {*classify_address("127.0.0.1")}};
    CHECK(gid_kinds_for(self) == std::vector<GidKind>{GidKind::ipv4, GidKind::ipv6_global, GidKind::ipv6_link_local});
    const Destination ll{"fe80::2%eth0", {*classify_address("fe80::2%eth0")}};
    CHECK(gid_kinds_for(ll) == std::vector<GidKind>{GidKind::ipv6_link_local});
    CHECK(gid_kinds_for(Destination{"nowhere", {}}).empty());
}

TEST_CASE("GID kind against the destination: the rule")
{
    const GidEntry ll{0, "fe80:0000:0000:0000:b424:3aff:fe11:d22e", "RoCE v2", "dummy0", "", true};
    const GidEntry v4{1, "0000:0000:0000:0000:0000:ffff:c000:0201", "RoCE v2", "veth0", "192.0.2.1", false};
    const GidEntry g6{2, "2001:0db8:0000:0000:0000:0000:0000:0001", "RoCE v2", "veth0", "", false};
    CHECK(kind_of(ll) == qps::decode::GidKind::ipv6_link_local);
    CHECK(kind_of(v4) == qps::decode::GidKind::ipv4);
    CHECK(kind_of(g6) == qps::decode::GidKind::ipv6_global);
    const Destination peer{"192.0.2.2", {*classify_address("192.0.2.2")}};
    const Destination self{"127.0.0.1", {*classify_address("127.0.0.1")}};
    const Destination peer6{"2001:db8::2", {*classify_address("2001:db8::2")}};

    // The set-up: only the link-local GID, an IPv4 peer.
    const Finding bad = check_gid_kind("rxe1", 1, std::nullopt, {ll}, 0, peer, "dummy0");
    CHECK(bad.failed());
    CHECK(bad.id == "port.gid_kind");
    CHECK(bad.cause == Cause::host);
    CHECK(contains(bad.summary, "link-local IPv6"));
    CHECK(contains(bad.summary, "192.0.2.2 IPv4"));
    CHECK(contains(bad.summary, "needs an IPv4 GID"));
    CHECK(contains(bad.fix, "give dummy0 an IPv4 address (ip addr add ADDR/LEN dev dummy0"));
    CHECK(contains(bad.why, "EINVAL"));

    // Loopback: the server is this host and picks its own GID; any kind may
    // meet it (the GIDs' families are compared once the server's is known).
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {ll, v4}, 1, self, "veth0").status == Status::ok);
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {ll, g6}, 2, self, "veth0").status == Status::ok);
    CHECK(check_gid_kind("rxe1", 1, std::nullopt, {ll}, 0, self, "dummy0").status == Status::ok);

    // Matching kinds.
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {ll, v4}, 1, peer, "veth0").status == Status::ok);
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {ll, v4, g6}, 2, peer6, "veth0").status == Status::ok);
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {v4, g6}, 1, peer6, "veth0").failed());

    // -x picked the wrong one while another matches: the option's fault.
    const Finding wrong_x = check_gid_kind("rxe0", 1, 0, {ll, v4}, 0, peer, "veth0");
    CHECK(wrong_x.failed());
    CHECK(wrong_x.cause == Cause::option);
    CHECK(contains(wrong_x.fix, "use -x 1 (index 1 192.0.2.1 (IPv4))"));

    // Nothing to compare: not resolved, or no GID chosen.
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {ll}, 0, Destination{"nowhere", {}}, "veth0").status ==
          Status::skipped);
    CHECK(check_gid_kind("rxe0", 1, std::nullopt, {}, std::nullopt, peer, "veth0").status == Status::skipped);
}

TEST_CASE("loopback failure: an addressing errno points at the addresses, not the driver")
{
    CHECK(addressing_errno("ibv_modify_qp(0x11 to state 2)", ENETUNREACH, true));
    CHECK(addressing_errno("ibv_modify_qp(0x11 to state 2)", EINVAL, true));
    CHECK(addressing_errno("ibv_create_ah", EINVAL, true));
    CHECK(addressing_errno("", EHOSTUNREACH, false));
    CHECK_FALSE(addressing_errno("ibv_modify_qp(0x11 to state 3)", EINVAL, true));
    CHECK_FALSE(addressing_errno("ibv_modify_qp(0x11 to state 2)", EINVAL, false));
    CHECK_FALSE(addressing_errno("ibv_create_qp(rxe0)", ENOMEM, true));

    const std::vector<GidEntry> ll{{0, "fe80:0000:0000:0000:b424:3aff:fe11:d22e", "RoCE v2", "dummy0", "", true}};
    const Finding roce_gid = check_roce_gid("rxe1", 1, ll, "dummy0");
    REQUIRE(roce_gid.status == Status::warn);
    const Finding f = loopback_failure("rxe1", 1, "ibv_modify_qp(0x11 to state 2) failed: ENETUNREACH",
                                       "ibv_modify_qp(0x11 to state 2)", ENETUNREACH, true, &roce_gid);
    CHECK(f.failed());
    CHECK(f.id == "port.loopback");
    CHECK(contains(f.why, "port.roce_gid says why"));
    CHECK(contains(f.why, "not of the device or its driver"));
    CHECK_FALSE(contains(f.fix, "driver"));
    CHECK(contains(f.fix, "ip addr add ADDR/LEN dev dummy0"));
    // Without an explaining finding: the port's GIDs and addresses.
    const Finding g = loopback_failure("rxe1", 1, "x", "ibv_modify_qp(0x11 to state 2)", EADDRNOTAVAIL, true, nullptr);
    CHECK(contains(g.fix, "qpscope ports -d rxe1"));
    // Anything else: the device and its driver, as before.
    const Finding d = loopback_failure("rxe1", 1, "ping-pong stopped: no completion for 3000 ms", "", 0, true,
                                       &roce_gid);
    CHECK(contains(d.fix, "reload the driver"));
}

TEST_CASE("loopback on iWARP: not run, skipped with the transport's refusal (the host stays healthy)")
{
    CHECK_FALSE(loopback_not_connectable("rxe0", 1, IBV_TRANSPORT_IB));
    const auto skipped = loopback_not_connectable("iwp0", 1, IBV_TRANSPORT_IWARP);
    REQUIRE(skipped);
    CHECK(skipped->id == "port.loopback");
    CHECK(skipped->status == Status::skipped);
    CHECK(skipped->device == "iwp0");
    CHECK(skipped->port == 1u);
    CHECK(skipped->summary == "not run: iwp0 port 1 (transport: iWARP): iWARP QPs connect only through rdma_cm: "
                              "give --cm on both sides");
    CHECK(contains(skipped->fix, "doctor --cm for the loopback"));
}
