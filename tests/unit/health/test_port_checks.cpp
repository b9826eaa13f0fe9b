// doctor's port checks: --expect parsing, the link against it, a routable
// RoCE v2 GID, and the RoCE MTU explained from the netdev MTU.
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/health/port_checks.hpp"
#include "unit/util.hpp"

using namespace qps::health;
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
