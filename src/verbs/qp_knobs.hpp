// What production sets on a connected QP besides its peer (QpKnobs), and
// what a qpscope QP gets unless asked otherwise. Plain data: the mesh's
// test parameters carry it without the verbs headers.
#pragma once

#include <cstdint>

namespace qps::verbs {

// What connect() gives an RC QP unless asked otherwise (LinkSetup): the
// local ACK timeout (code: 4.096 us x 2^14 = 67 ms) and the retry count
// (7: rxe and others then retry forever).
inline constexpr int link_ack_timeout_code = 14;
inline constexpr int link_retry_cnt = 7;
// RNR: retry forever (7), and a receiver out of receives asks for 0.64 ms (code 12).
inline constexpr int link_rnr_retry = 7;
inline constexpr int link_min_rnr_timer = 12;

// What production sets on a connected QP besides its peer: the GRH's
// traffic class (RoCE v2: the IP TOS byte, DSCP << 2 | ECN; 0 = the QP's
// default), the address vector's service level and flow label, the P_Key
// index, and an RC QP's local ACK timeout (code), transport retries, RNR
// retries (7: forever) and RNR NAK timer (code). ping-pong, bw, the mesh
// and doctor's loopback take them from the same options (--tclass, --sl,
// ...: commands/link_flags).
struct QpKnobs {
    std::uint8_t traffic_class = 0;
    std::uint8_t sl = 0;
    std::uint32_t flow_label = 0;
    std::uint16_t pkey_index = 0;
    std::uint8_t ack_timeout = link_ack_timeout_code;
    std::uint8_t retry_cnt = link_retry_cnt;
    std::uint8_t rnr_retry = link_rnr_retry;
    std::uint8_t min_rnr_timer = link_min_rnr_timer;
};

}  // namespace qps::verbs
