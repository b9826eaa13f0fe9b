// The RoCE v2 traffic class byte: DSCP and ECN decoded, and what changed
// between sender and receiver said in words (`qpscope path`'s check).
#include <doctest/doctest.h>

#include "src/decode/tos.hpp"

using namespace qps::decode;

TEST_CASE("traffic class: DSCP in the upper six bits, ECN in the lower two")
{
    CHECK(dscp_of(106) == 26);  // NCCL_IB_TC=106: DSCP 26 (AF31), ECN ECT(0)
    CHECK(ecn_of(106) == 2);
    CHECK(traffic_class_of(26, 2) == 106);
    CHECK(traffic_class_of(46, 0) == 184);  // EF
    CHECK(traffic_class_text(106) == "DSCP 26 (AF31), ECN ECT(0)");
    CHECK(traffic_class_text(0) == "DSCP 0 (CS0), ECN Not-ECT");
    CHECK(traffic_class_text(traffic_class_of(3, 3)) == "DSCP 3, ECN CE");  // unnamed DSCP: its number only
}

TEST_CASE("DSCP and ECN names come from the tables; an unnamed code point is kept")
{
    CHECK(*dscp(46).name == "EF");
    CHECK(*dscp(44).name == "VOICE-ADMIT");
    CHECK(*dscp(1).name == "LE");
    CHECK(*dscp(56).name == "CS7");
    const Decoded odd = dscp(3);
    CHECK_FALSE(odd.known);
    CHECK(odd.raw == 3);
    CHECK(*ecn(3).name == "CE");
    CHECK(*ecn(1).name == "ECT(1)");
}

TEST_CASE("what changed on the way: nothing, DSCP re-marked, CE, ECN cleared, both")
{
    CHECK_FALSE(traffic_class_change(106, 106).has_value());
    CHECK(traffic_class_change(106, 2) == "sent DSCP 26 (AF31), received DSCP 0 (CS0): re-marked on the way");
    CHECK(traffic_class_change(106, 107) == "ECN CE: congestion experienced on the way");
    CHECK(traffic_class_change(106, 104) == "sent ECN ECT(0), received ECN Not-ECT: ECN cleared on the way");
    CHECK(traffic_class_change(104, 107) == "sent ECN Not-ECT, received ECN CE: ECN changed on the way");
    CHECK(traffic_class_change(106, 3) == "sent DSCP 26 (AF31), received DSCP 0 (CS0): re-marked on the way; "
                                          "ECN CE: congestion experienced on the way");
}

TEST_CASE("the traffic class of a received UD message, from its GRH space")
{
    std::array<std::uint8_t, 40> grh{};
    CHECK_FALSE(received_traffic_class(grh).has_value());  // nothing there
    // RoCE v2 over IPv4: the IPv4 header in the last 20 bytes.
    grh[20] = 0x45;
    grh[21] = 104;
    CHECK(received_traffic_class(grh) == 104);
    grh[20] = 0x44;  // an IPv4 header length below 5 words is no header
    CHECK_FALSE(received_traffic_class(grh).has_value());
    // IPv6 (or an IB GRH): version 6, traffic class across the first two bytes.
    std::array<std::uint8_t, 40> v6{};
    v6[0] = 0x66;  // version 6, traffic class high nibble 6
    v6[1] = 0xa0;  // low nibble 0xa
    CHECK(received_traffic_class(v6) == 0x6a);
    CHECK(dscp_of(*received_traffic_class(v6)) == 26);
}
