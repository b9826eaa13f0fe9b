// `qpscope path`'s judgements of measured values: the round trip against
// the ACK timeout, and the MTU sweep (a hole, loss, nothing at all).
#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "src/health/path_checks.hpp"

using namespace qps;
using namespace qps::health;

TEST_CASE("path.ack_timeout: within, longer than the timer, timer off, code out of range")
{
    const Finding ok = check_ack_timeout(20.0, 14, 7);  // 67.1 ms timer
    CHECK(ok.id == "path.ack_timeout");
    CHECK(ok.status == Status::ok);
    CHECK(ok.summary.find("within the local ACK timeout") != std::string::npos);

    const Finding slow = check_ack_timeout(300.0, 5, 7);  // 131 us timer, 300 us round trip
    CHECK(slow.status == Status::warn);
    CHECK(slow.summary.find("longer than the local ACK timeout") != std::string::npos);
    CHECK(slow.summary.find("RETRY_EXC_ERR after 7 retries") != std::string::npos);
    // 2 x 300 us = 600 us: code 8 is 1.05 ms (code 7 is 524 us)
    CHECK(slow.fix.find("code 8 or more") != std::string::npos);

    const Finding off = check_ack_timeout(300.0, 0, 7);
    CHECK(off.status == Status::ok);
    CHECK(off.summary.find("off (code 0)") != std::string::npos);

    CHECK_THROWS_AS(check_ack_timeout(1.0, 32, 7), UsageError);
}

TEST_CASE("path.mtu: every size whole, a hole above 1024, loss (anywhere, the largest size too), nothing arrives")
{
    std::vector<MtuProbe> all{{256, 10, 10}, {512, 10, 10}, {1024, 10, 10}, {2048, 10, 10}, {4096, 10, 10}};
    const Finding whole = check_path_mtu(all, 4096, 4096, 60);
    CHECK(whole.status == Status::ok);
    CHECK(whole.summary == "every size arrived, up to 4096 bytes (the sender's active MTU 4096)");
    CHECK(whole.seen.front().first == "bytes_256");

    std::vector<MtuProbe> hole{{4096, 10, 0}, {256, 10, 10}, {512, 10, 10}, {1024, 10, 10}, {2048, 10, 0}};
    const Finding h = check_path_mtu(hole, 4096, 4096, 60);
    CHECK(h.status == Status::fail);
    CHECK(h.summary == "1024 bytes arrive, 2048 do not (0 of 10): something between here and there carries less "
                       "than 2048 + 60 header bytes");
    CHECK(h.fix.find("--mtu 1024") != std::string::npos);
    CHECK(h.fix.find("at least 2108") != std::string::npos);

    // The same hole where the receiver's own port runs 1024: it is named.
    const Finding mine = check_path_mtu(hole, 4096, 1024, 60);
    CHECK(mine.status == Status::fail);
    CHECK(mine.summary == "1024 bytes arrive, 2048 do not (0 of 10): the receiver's port runs an active MTU of 1024, "
                          "below the sender's 4096");

    std::vector<MtuProbe> lossy{{256, 10, 10}, {512, 10, 7}, {1024, 10, 10}};
    const Finding l = check_path_mtu(lossy, 1024, 1024, 60);
    CHECK(l.status == Status::warn);
    CHECK(l.summary.find("loss on the path, not its MTU") != std::string::npos);
    // One message of the largest size lost is loss too, not a hole.
    std::vector<MtuProbe> tail{{256, 20, 20}, {512, 20, 20}, {1024, 20, 19}};
    CHECK(check_path_mtu(tail, 1024, 1024, 60).status == Status::warn);
    // A hole below a size that arrived in part is loss, not a hole.
    std::vector<MtuProbe> gap{{256, 20, 20}, {512, 20, 0}, {1024, 20, 3}};
    CHECK(check_path_mtu(gap, 1024, 1024, 60).status == Status::warn);

    std::vector<MtuProbe> none{{256, 10, 0}, {512, 10, 0}};
    const Finding n = check_path_mtu(none, 1024, 1024, 60);
    CHECK(n.status == Status::fail);
    CHECK(n.summary.find("RoCE packets do not reach the peer") != std::string::npos);
    CHECK(n.fix.find("UDP port 4791") != std::string::npos);
}

TEST_CASE("path.roce: arrives, nothing arrives (named UDP 4791, with the port counters)")
{
    const Finding some = check_roce_reaches({"here -> 192.0.2.2", 300, 12, std::nullopt, std::nullopt}, 18615);
    CHECK(some.status == Status::ok);
    CHECK(some.summary == "here -> 192.0.2.2: RoCE v2 packets arrive (12 of 300 messages)");

    const Finding none = check_roce_reaches({"here -> 192.0.2.2", 300, 0, 312, 0}, 18615);
    CHECK(none.status == Status::fail);
    CHECK(none.summary == "here -> 192.0.2.2: TCP 18615 answers, RoCE packets do not arrive (0 of 300 messages) "
                          "(the sender's port counted 312 RoCE packets out, the receiver's 0 in): UDP 4791 dropped "
                          "on the way or at the receiver");
    CHECK(none.fix.find("UDP port 4791") != std::string::npos);
    // Without counters the sentence still names the port.
    const Finding bare = check_roce_reaches({"192.0.2.2 -> here", 5, 0, std::nullopt, std::nullopt}, 7000);
    CHECK(bare.summary.find("TCP 7000 answers") != std::string::npos);
    CHECK(bare.summary.find("counted") == std::string::npos);
}

TEST_CASE("path.port_mtu: the same, different (the lower one named for the connection)")
{
    CHECK(check_port_mtus("b", 4096, 4096).status == Status::ok);
    const Finding d = check_port_mtus("192.0.2.2", 4096, 1024);
    CHECK(d.status == Status::warn);
    CHECK(d.summary == "the ports run different active MTUs: here 4096, 192.0.2.2 1024: a connection runs at 1024");
    CHECK(d.fix.find("active MTU of 4096") != std::string::npos);
}

TEST_CASE("path.loss: none, some (rate), no burst")
{
    CHECK(check_loss("here -> b", 200, 200).status == Status::ok);
    const Finding l = check_loss("here -> b", 200, 196);
    CHECK(l.status == Status::warn);
    CHECK(l.summary == "here -> b: 2.0 % loss (4 of 200 UD messages lost)");
    CHECK(check_loss("here -> b", 0, 0).status == Status::skipped);
}

TEST_CASE("path.traffic_class: as sent, re-marked, nothing seen")
{
    const Finding same = check_traffic_class("here -> b", 104, 104);
    CHECK(same.status == Status::ok);
    CHECK(same.summary == "here -> b: DSCP 26 (AF31), ECN Not-ECT arrived as sent");
    const Finding remarked = check_traffic_class("here -> b", 104, 0);
    CHECK(remarked.status == Status::warn);
    CHECK(remarked.summary == "here -> b: sent DSCP 26 (AF31), received DSCP 0 (CS0): re-marked on the way");
    CHECK(check_traffic_class("here -> b", 104, std::nullopt).status == Status::skipped);
}

TEST_CASE("path --expect: parsing, and each term against what was measured")
{
    const PathExpect e = parse_path_expect("mtu>=4096, loss<=0.5%,rtt<=2ms");
    CHECK(e.mtu == 4096u);
    CHECK(e.loss_percent == doctest::Approx(0.5));
    CHECK(e.rtt_us == doctest::Approx(2000));
    CHECK(parse_path_expect("rtt<=500ns").rtt_us == doctest::Approx(0.5));
    CHECK(parse_path_expect("rtt<=1s").rtt_us == doctest::Approx(1e6));
    CHECK(parse_path_expect("").empty());
    CHECK_THROWS_WITH_AS(parse_path_expect("mtu>=3000"),
                         "--expect mtu>=3000: the MTU must be one of 256, 512, 1024, 2048, 4096", UsageError);
    CHECK_THROWS_AS(parse_path_expect("rtt<=5"), UsageError);      // a round trip needs its unit
    CHECK_THROWS_AS(parse_path_expect("loss<=101"), UsageError);
    CHECK_THROWS_AS(parse_path_expect("bw>=10"), UsageError);
    CHECK_THROWS_AS(parse_path_expect("mtu>=4096,,rtt<=1us"), UsageError);

    const auto met = check_path_expect(e, {4096u, 0.0, 650.0});
    REQUIRE(met.size() == 3);
    for (const auto& f : met)
        CHECK(f.status == Status::ok);
    const auto missed = check_path_expect(e, {1024u, 2.0, std::nullopt});
    REQUIRE(missed.size() == 3);
    CHECK(missed[0].status == Status::fail);
    CHECK(missed[0].summary == "mtu>=4096 missed: 1024 bytes arrive whole");
    CHECK(missed[1].summary == "loss<=0.5% missed: 2.00 % lost");
    CHECK(missed[2].summary.find("not measured") != std::string::npos);
}

TEST_CASE("link.roce: a stalled run's packets: none reached the peer, none came back, both ways, unknown")
{
    using qps::kernel::PacketCounts;
    const Finding out = check_stalled_run("192.0.2.2", PacketCounts{1200, 3}, PacketCounts{5, 0}, 18615);
    CHECK(out.status == Status::fail);
    CHECK(out.summary == "here sent 1200 RoCE packets since the run began, 192.0.2.2 received none, while the TCP "
                         "exchange on port 18615 answered: UDP 4791 dropped on the way or at 192.0.2.2");
    CHECK(out.fix.find("UDP port 4791") != std::string::npos);
    const Finding in = check_stalled_run("192.0.2.1", PacketCounts{7, 0}, PacketCounts{1200, 9}, 18615);
    CHECK(in.status == Status::fail);
    CHECK(in.summary.find("192.0.2.1 sent 1200 RoCE packets since the run began, here received none") == 0);
    CHECK(in.summary.find("at this host") != std::string::npos);
    const Finding both = check_stalled_run("b", PacketCounts{10, 10}, PacketCounts{10, 10}, 1);
    CHECK(both.status == Status::ok);
    CHECK(both.summary.find("crossed both ways") != std::string::npos);
    CHECK(check_stalled_run("b", PacketCounts{10, std::nullopt}, PacketCounts{10, 10}, 1).status == Status::skipped);
}

TEST_CASE("link.carrier: a side whose link went down during the run is named; none, or unknown")
{
    using qps::kernel::LinkState;
    const LinkState a0{"eth0", 4, 0}, a1{"eth0", 4, 0}, b0{"eth1", 10, 3}, b1{"eth1", 12, 4};
    const Finding peer = check_link_changes("192.0.2.2", a0, a1, b0, b1);
    CHECK(peer.status == Status::fail);
    CHECK(peer.summary == "192.0.2.2's eth1 went down during the run (link_downed +1, carrier changes +2): RDMA "
                          "traffic stopped with it and did not resume in time");
    CHECK(peer.fix.find("ip -s link show") != std::string::npos);
    const Finding here = check_link_changes("192.0.2.1", b0, b1, a0, a1);
    CHECK(here.summary.find("here eth1 went down during the run (link_downed +1, carrier changes +2)") == 0);
    // An admin down (ip link set down) of a virtual NIC moves link_downed only.
    const Finding admin = check_link_changes("p", LinkState{"eth0", 1, 0}, LinkState{"eth0", 1, 1}, b0, b0);
    CHECK(admin.summary.find("here eth0 went down during the run (link_downed +1): ") == 0);
    const Finding both = check_link_changes("p", LinkState{"eth0", 1, 0}, LinkState{"eth0", 2, 0}, b0, b1);
    CHECK(both.summary.find("here eth0 went down during the run (carrier changes +1), and p's eth1") == 0);
    // InfiniBand: no netdev, the port's counter alone.
    const Finding ib = check_link_changes("p", LinkState{"", std::nullopt, 7}, LinkState{"", std::nullopt, 8},
                                          LinkState{}, LinkState{});
    CHECK(ib.summary.find("here port went down during the run (link_downed +1)") == 0);
    CHECK(check_link_changes("p", a0, a1, a0, a1).status == Status::ok);
    // Counts from a peer that does not send them, and none here.
    CHECK(check_link_changes("p", LinkState{}, LinkState{}, LinkState{}, LinkState{}).status == Status::skipped);
    // A counter that went down, or another netdev's carrier, is no evidence.
    CHECK(check_link_changes("p", b1, b0, LinkState{}, LinkState{}).status == Status::skipped);
    CHECK(check_link_changes("p", LinkState{"eth0", 1, std::nullopt}, LinkState{"eth1", 5, std::nullopt}, LinkState{}, LinkState{}).status ==
          Status::skipped);
}
