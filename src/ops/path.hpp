// `qpscope path`: what lies between this host and a peer, in both
// directions, over one UD QP a side and the out-of-band exchange (test
// "path"). The client drives, the server (`qpscope path` without HOST)
// adopts its parameters; both end with the same measurements, each seen
// from its own side ("here -> peer" is this side's sending direction):
//   1. the round trip: pings, one at a time, that the server answers;
//   2. each direction in turn (the client's first): the MTU sweep (a number
//      of messages of each path MTU size up to the sender's active MTU),
//      then a burst of small messages for the loss rate, all sent with the
//      traffic class asked for; the receiver counts what arrived and reads
//      the traffic class it arrived with;
//   3. both sides' port counters, read before and after, swapped.
// The findings (src/health/path_checks, the counter table) judge them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/finding.hpp"
#include "src/health/path_checks.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/perf/link_common.hpp"

namespace qps::ops {

// The knobs path uses are the base's: the GRH's traffic class (IP TOS: DSCP
// << 2 | ECN), SL, flow label and P_Key index on its UD probes, the RC ACK
// timeout and retry count as what its round trip is judged against.
struct PathOptions : perf::LinkOptions {
    std::uint32_t probes = 20;       // messages per size of the MTU sweep
    std::uint32_t burst = 200;       // small messages for the loss rate
    std::uint32_t pings = 50;        // round trips
    health::PathExpect expect;
    // Called before each step ("round trip: 50 pings").
    std::function<void(const std::string&)> progress;
};

inline constexpr std::uint32_t max_path_probes = 1000, max_path_burst = 10000, max_path_pings = 10000;

// One direction's measurements.
struct PathDirection {
    std::string name;                    // "here -> 192.0.2.2" or "192.0.2.2 -> here"
    std::uint32_t sender_mtu = 0;        // the sender's active MTU: the sweep's largest size
    std::vector<health::MtuProbe> probes;        // by size
    std::uint32_t burst_sent = 0, burst_arrived = 0;
    int traffic_class_sent = 0;
    std::optional<int> traffic_class_received;  // of the last message that arrived
    std::uint32_t failed_receives = 0;
    // The largest size that arrived (some of its messages), every smaller
    // one arriving too: what the path carries, loss aside (nullopt: none).
    std::optional<std::uint32_t> largest_carried() const;
    std::uint32_t sent() const;     // every message of the sweep and the burst
    std::uint32_t arrived() const;
};

struct PathRoundTrip {
    std::uint32_t sent = 0, answered = 0;
    std::optional<double> min_us, p50_us, max_us;
    std::string stopped;  // why the pings ended early
};

struct PathReport {
    std::string role;  // "client" | "server"
    std::string peer;       // the exchange's peer address and port
    std::string peer_host;  // its address alone
    std::string device, peer_device;
    std::uint32_t port = 1, peer_port = 1;
    std::uint32_t gid_index = 0;
    std::string gid, peer_gid;
    std::uint32_t mtu = 0, peer_mtu = 0;  // active MTUs (or --mtu), bytes
    std::uint16_t tcp_port = 0;
    int traffic_class = 0;
    std::uint32_t probes = 0, burst = 0, pings = 0;
    // The probes' address: service level, flow label, P_Key index (--sl,
    // --flow-label, --pkey-index; a server: the client's).
    std::uint32_t sl = 0, flow_label = 0, pkey_index = 0;
    // What the round trip is judged against: an RC QP's ACK timeout code and
    // retry count (--qp-timeout, --retry-cnt; default: what qpscope's use).
    int ack_timeout_code = 0, retry_cnt = 0;
    PathRoundTrip rtt;                        // the client's measurement on both sides
    PathDirection out, in;                    // here -> peer, peer -> here
    // Each side's RoCE packets over the run, from its port counters
    // (kernel::read_packet_counts; nullopt: the driver counts neither way).
    kernel::PacketCounts packets, peer_packets;
    double seconds = 0;
    std::vector<Finding> findings;        // path.* in order: roce, mtu, loss, traffic class (out, in), ack timeout, expect
    std::vector<Finding> counters;        // this side's error counters that rose (or one ok)
    std::vector<Finding> peer_counters;   // the peer's
};

// Runs this side (client with o.host, else server). UsageError for bad
// input, the exchange's errors for a peer that fails it; what the path does
// wrong is a finding.
PathReport run_path(const PathOptions& o);

// 0 when no finding warns or fails, 1 otherwise.
int path_exit_code(const PathReport& r);

}  // namespace qps::ops
