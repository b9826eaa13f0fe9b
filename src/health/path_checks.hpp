// What `qpscope path` (issue 24) judges from its measurements: pure
// functions of measured values, each a Finding (unit-tested; the sweeps
// and the exchange that produce the values are the operation's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/finding.hpp"

namespace qps::health {

// id "path.ack_timeout": the round trip measured to the peer against the
// local ACK timeout (ibv_qp_attr.timeout code) and retry count a default
// RC QP uses. warn when an ACK cannot arrive within one timeout (the QP
// would retransmit needlessly and, at retry_cnt, fail with
// RETRY_EXC_ERR); ok otherwise, with the margin. Code 0 (no timer) is ok:
// the QP never gives up, said so.
Finding check_ack_timeout(double rtt_us, int timeout_code, int retry_cnt);

// One size of the MTU sweep: messages of `bytes` (one packet each at this
// path MTU) sent, and how many arrived.
struct MtuProbe {
    std::uint32_t bytes = 0;
    std::uint32_t sent = 0, arrived = 0;
};

// id "path.mtu": the largest size that arrived whole, and the first that
// did not. fail when a size at or below the port's active MTU
// (`port_mtu`) is lost while smaller ones arrive: some hop carries less
// than that size plus the RoCE headers (`header_bytes`, e.g. 80 for rxe);
// the fix lowers the path MTU or raises the hop's. ok when every size
// arrived.
Finding check_path_mtu(const std::vector<MtuProbe>& probes, std::uint32_t port_mtu, std::uint32_t header_bytes);

}  // namespace qps::health
