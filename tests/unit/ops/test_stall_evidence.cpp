// A stalled run's evidence as it travels, and the verdict of both sides'.
#include <doctest/doctest.h>

#include "src/net/heartbeat.hpp"
#include "src/ops/stall_evidence.hpp"

using namespace qps;
using namespace qps::ops;
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

TEST_CASE("lost peer: a side whose own link went down names it first, whichever timer fired; one that saw nothing keeps the TCP wording")
{
    using namespace std::chrono_literals;
    // B in lab-2's flap: its eth0 down 3 s, its heartbeat limit ran out
    // first, and its TCP had bytes queued and no route.
    const std::string b_silence = net::silence_text("192.0.2.1:18615", 10000ms, net::TcpState{0, 0, 200, 240});
    const Evidence b{PacketCounts{900, 850}, LinkState{"eth0", 4, 0}, LinkState{"eth0", 6, 1}};
    std::string reason = b_silence;
    REQUIRE(name_lost_peer(reason, "192.0.2.1", b));
    CHECK(reason.find("here eth0 went down during the run (link_downed +1, carrier changes +2): RDMA traffic "
                      "stopped with it and did not resume in time; then the peer 192.0.2.1:18615 stopped "
                      "answering: no heartbeat for 10000 ms, and this side's TCP cannot send to it (240 bytes "
                      "waiting, none in flight)") == 0);
    CHECK(reason.find("; fix: look at the link's history") != std::string::npos);
    // The same words as a completion error's verdict on the same evidence
    // (one source: health::check_link_changes).
    const auto stalled = stall_on_path("192.0.2.1", b, Evidence{}, 18615);
    REQUIRE(stalled);
    const std::string link_words = stalled->substr(0, stalled->find(": RDMA traffic stopped"));
    CHECK(link_words == "here eth0 went down during the run (link_downed +1, carrier changes +2)");
    CHECK(reason.find(link_words) == 0);

    // The exchange's timer fired first (the results never came): the same.
    std::string timed_out = "exchange with 192.0.2.1:18615: nothing received within 10000 ms while waiting for the "
                            "\"results\" message: the peer stopped answering, the connection still open";
    REQUIRE(name_lost_peer(timed_out, "192.0.2.1", b));
    CHECK(timed_out.find(link_words + ": RDMA traffic stopped with it and did not resume in time; then exchange "
                                      "with 192.0.2.1:18615: nothing received") == 0);

    // A, whose link stayed up: its segments to B unacknowledged. Nothing of
    // its own to name: the TCP wording stands (exit 3).
    const std::string a_silence = net::silence_text("192.0.2.2:40000", 10000ms, net::TcpState{2, 5, 3200, 0});
    const LinkState a_link{"eth0", 1, 0};
    std::string a_reason = a_silence;
    CHECK_FALSE(name_lost_peer(a_reason, "192.0.2.2", Evidence{PacketCounts{900, 850}, a_link, a_link}));
    CHECK(a_reason == a_silence);
    CHECK(a_reason.find("this side's TCP to it goes unacknowledged (2 segments in flight, sent again 5 times") !=
          std::string::npos);

    // Counters unknown (no hw_counters, no netdev): nothing to name either.
    std::string unknown = b_silence;
    CHECK_FALSE(name_lost_peer(unknown, "192.0.2.1", Evidence{}));
    CHECK(unknown == b_silence);

    // Only the port's counter known (the netdev changed or has no
    // carrier_changes): link_downed alone names the port's netdev.
    std::string port_only = b_silence;
    REQUIRE(name_lost_peer(port_only, "192.0.2.1",
                           Evidence{PacketCounts{}, LinkState{"eth0", std::nullopt, 2},
                                    LinkState{"eth0", std::nullopt, 3}}));
    CHECK(port_only.find("here eth0 went down during the run (link_downed +1): ") == 0);
}

TEST_CASE("lost peer: the peer's evidence that came after all is judged as a stall's, whichever timer fired")
{
    // bw with UDP 4791 dropped at B under load: A's heartbeat limit ran out
    // before its stall watchdog, B's TCP still answered A's "stalled".
    const LinkState steady{"eth0", 2, 0};
    const Evidence a{PacketCounts{1200, 3}, steady, steady};
    const Json b = to_json(Evidence{PacketCounts{5, 0}, steady, steady});
    const std::string silence = "the peer 192.0.2.2:18615 stopped answering: no heartbeat for 5000 ms";
    std::string reason = silence;
    REQUIRE(name_lost_peer(reason, "192.0.2.2", a, b, 18615));
    CHECK(reason.find(silence + ": here sent 1200 RoCE packets since the run began, 192.0.2.2 received none, while "
                                "the TCP exchange on port 18615 answered: UDP 4791 dropped on the way or at "
                                "192.0.2.2") == 0);
    // The same verdict as a stall's on the same evidence.
    CHECK(reason.find(*stall_on_path("192.0.2.2", a, evidence_from(b), 18615)) != std::string::npos);
    // B's side of it: A's evidence in A's answer.
    std::string b_reason = "the peer 192.0.2.1:40000 stopped answering: no heartbeat for 5000 ms";
    REQUIRE(name_lost_peer(b_reason, "192.0.2.1", evidence_from(b), to_json(a), 18615));
    CHECK(b_reason.find("192.0.2.1 sent 1200 RoCE packets since the run began, here received none") !=
          std::string::npos);
    CHECK(b_reason.find("UDP 4791 dropped on the way or at this host") != std::string::npos);
    // The peer's link that went down, in its answer: named first.
    const Json b_down = to_json(Evidence{PacketCounts{5, 0}, steady, LinkState{"eth0", 2, 1}});
    std::string down = silence;
    REQUIRE(name_lost_peer(down, "192.0.2.2", a, b_down, 18615));
    CHECK(down.find("192.0.2.2's eth0 went down during the run (link_downed +1)") == 0);
    CHECK(down.find("; then " + silence) != std::string::npos);
    // Packets that crossed both ways, or no answer: the lost peer's words stand.
    const Json crossed = to_json(Evidence{PacketCounts{3, 1200}, steady, steady});
    std::string stands = silence;
    CHECK_FALSE(name_lost_peer(stands, "192.0.2.2", a, crossed, 18615));
    CHECK_FALSE(name_lost_peer(stands, "192.0.2.2", a, Json::object(), 18615));
    CHECK(stands == silence);
}

TEST_CASE("the peer's word that never came: the peer ended the run, the wait, what it met, this side's TCP")
{
    using namespace std::chrono_literals;
    CHECK(peer_word_missing("192.0.2.2:18615", 10000ms,
                            "exchange with 192.0.2.2:18615: connection reset by the peer while we waited for the "
                            "\"results\" message",
                            net::TcpState{0, 0, 200}) ==
          "the peer 192.0.2.2:18615 ended the run, but its reason did not arrive within 10000 ms without a byte "
          "(exchange with 192.0.2.2:18615: connection reset by the peer while we waited for the \"results\" "
          "message); this side's TCP has nothing unacknowledged and nothing waiting");
    CHECK(peer_word_missing("h:1", 500ms, "x", net::TcpState{2, 3, 800}).find(
              "; this side's TCP to it has 2 segments unacknowledged, sent again 3 times") != std::string::npos);
}
