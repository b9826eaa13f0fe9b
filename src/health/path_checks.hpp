// What `qpscope path` (issue 24) judges from its measurements: pure
// functions of measured values, each a Finding (unit-tested; the sweeps
// and the exchange that produce the values are the operation's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/finding.hpp"
#include "src/kernel/sysfs.hpp"

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

// id "path.mtu": what the sweep of one direction says of its MTU. fail when
// a size and every larger one arrived not at all while smaller ones
// arrived (a hole): blamed on the receiver's own port when the size is
// above its active MTU (`receiver_mtu`), else on a hop that carries less
// than the size plus `header_bytes` (the RoCE headers of an RC write: 60
// over IPv4, 80 over IPv6); the fix lowers the path MTU or raises the
// hop's. fail when no size arrived at all. warn when messages of some size
// were lost but not all (loss, not an MTU). ok when every size arrived.
Finding check_path_mtu(const std::vector<MtuProbe>& probes, std::uint32_t sender_mtu, std::uint32_t receiver_mtu,
                       std::uint32_t header_bytes);

// id "path.port_mtu": both ports' active MTUs (bytes). warn when they
// differ: a connection runs at the lower one (qpscope's tests do), but what
// is sized for the higher one (UD messages, a QP given that path_mtu) is
// dropped where the port or a hop carries less.
Finding check_port_mtus(std::string_view peer, std::uint32_t here, std::uint32_t there);

// id "path.roce": whether RoCE v2 packets of one direction (`direction`,
// e.g. "here -> 192.0.2.2") arrived at all, while the TCP exchange on
// `tcp_port` answered. fail when none of `sent` arrived, naming UDP 4791,
// with the sender's and the receiver's RoCE packet counters over the run
// when they are known (ok otherwise).
struct RoceReach {
    std::string direction;
    std::uint32_t sent = 0, arrived = 0;
    std::optional<std::uint64_t> sender_packets, receiver_packets;  // port counters' rise over the run
};
Finding check_roce_reaches(const RoceReach& r, std::uint16_t tcp_port);

// id "path.loss": a burst of small UD messages of one direction, sent and
// arrived. warn when any was lost, with the rate.
Finding check_loss(std::string_view direction, std::uint32_t sent, std::uint32_t arrived);

// id "path.traffic_class": the traffic class the sender set against the
// one that arrived (the last message's). ok when equal, warn when DSCP or
// ECN changed on the way (decode::traffic_class_change), skipped when
// nothing arrived or the receiver saw no IP header.
Finding check_traffic_class(std::string_view direction, int sent, std::optional<int> received);

// id "link.roce": why a two-sided test's run stalled while its TCP exchange
// answered (the peer sent its results), from both sides' RoCE packets
// since the run began. fail when one side sent and the other received none
// (UDP 4791 dropped on the way or at the receiver, named); ok when packets
// crossed both ways (the path carried them: the stall is elsewhere);
// skipped when either side's counters are unknown.
Finding check_stalled_run(std::string_view peer, const kernel::PacketCounts& here, const kernel::PacketCounts& there,
                          std::uint16_t tcp_port);

// id "link.carrier": a stalled run during which a side's link went down
// (its port's link_downed or its netdev's carrier_changes rose): fail
// naming the side, the netdev and the counts; ok when neither rose;
// skipped when neither side's counts are known.
Finding check_link_changes(std::string_view peer, const kernel::LinkState& here_start, const kernel::LinkState& here_now,
                           const kernel::LinkState& there_start, const kernel::LinkState& there_now);

// --expect of `qpscope path`: "mtu>=4096,loss<=0,rtt<=20us" (loss in per
// cent, rtt in ns, us, ms or s). UsageError naming the term and the valid forms.
struct PathExpect {
    std::optional<std::uint32_t> mtu;     // the largest size that arrived whole, both directions
    std::optional<double> loss_percent;   // the burst's loss, each direction
    std::optional<double> rtt_us;         // the median round trip
    bool empty() const { return !mtu && !loss_percent && !rtt_us; }
};
PathExpect parse_path_expect(std::string_view text);
inline constexpr std::string_view path_expect_forms = "mtu>=BYTES, loss<=PERCENT, rtt<=NUMBER{ns|us|ms|s}";

// What was measured, against --expect: one finding "path.expect" per term
// given (ok or fail); a value not measured (no round trip) fails its term.
struct PathMeasured {
    std::optional<std::uint32_t> mtu;  // the lower of both directions' largest whole size
    std::optional<double> loss_percent;  // the higher of both directions'
    std::optional<double> rtt_us;
};
std::vector<Finding> check_path_expect(const PathExpect& e, const PathMeasured& m);

}  // namespace qps::health
