// A stalled run's evidence as it travels, and the verdict of both sides'.
#include <doctest/doctest.h>

#include "src/ops/stall_evidence.hpp"

using namespace qps;
using namespace qps::perf;
using qps::kernel::LinkState;
using qps::kernel::PacketCounts;

TEST_CASE("stall evidence: its wire form round-trips; a peer's missing or malformed members are unknown")
{
    const Evidence e{PacketCounts{305, std::nullopt}, LinkState{"eth0", 3, 0}, LinkState{"eth0", 5, 1}};
    const Json j = to_json(e);
    CHECK(j.dump() == R"({"roce_packets":{"sent":305,"received":null},)"
                      R"("link":{"netdev":"eth0","link_downed_start":0,"link_downed_now":1,"carrier_start":3,)"
                      R"("carrier_now":5}})");
    const Evidence back = evidence_from(j);
    CHECK(back.packets.sent == 305u);
    CHECK_FALSE(back.packets.received);
    CHECK(back.link_start.netdev == "eth0");
    CHECK(back.link_start.carrier_changes == 3u);
    CHECK(back.link_now.carrier_changes == 5u);
    CHECK(back.link_now.link_downed == 1u);
    const Evidence none = evidence_from(Json{{"roce_packets", 7}, {"link", {{"carrier_now", "x"}}}});
    CHECK_FALSE(none.packets.sent);
    CHECK_FALSE(none.link_now.carrier_changes);
    CHECK_FALSE(evidence_from(Json(5)).packets.received);
}

TEST_CASE("stall verdict: a link that went down comes first, then where RoCE packets stopped, else none")
{
    const LinkState steady{"eth0", 2, 0};
    const Evidence sent{PacketCounts{1200, 3}, steady, steady};
    const Evidence got_none{PacketCounts{5, 0}, steady, steady};
    const auto dropped = stall_on_path("192.0.2.2", sent, got_none, 18615);
    REQUIRE(dropped);
    CHECK(dropped->find("here sent 1200 RoCE packets since the run began, 192.0.2.2 received none") == 0);
    CHECK(dropped->find("; fix: allow UDP port 4791") != std::string::npos);

    const Evidence flapped{PacketCounts{5, 0}, LinkState{"eth0", 2, 0}, LinkState{"eth0", 4, 0}};
    const auto link = stall_on_path("192.0.2.2", sent, flapped, 18615);
    REQUIRE(link);
    CHECK(link->find("192.0.2.2's eth0 went down during the run (carrier changes +2)") == 0);

    // No word from the peer (its answer could not cross the link that went
    // down): this side's own link is still named.
    const Evidence here_down{PacketCounts{3, 3}, LinkState{"eth0", 2, 4}, LinkState{"eth0", 2, 5}};
    const auto alone = stall_on_path("192.0.2.1", here_down, Evidence{}, 18615);
    REQUIRE(alone);
    CHECK(alone->find("here eth0 went down during the run (link_downed +1)") == 0);

    const Evidence crossed{PacketCounts{10, 10}, steady, steady};
    CHECK_FALSE(stall_on_path("b", crossed, crossed, 1));
    CHECK_FALSE(stall_on_path("b", crossed, Evidence{}, 1));  // a peer that sent nothing we know
}
