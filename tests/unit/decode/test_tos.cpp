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
