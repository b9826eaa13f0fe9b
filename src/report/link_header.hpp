// What every two-sided test (ping-pong, bw) reports about itself before
// its figures: who is who, what runs over what, and how it was set up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qps::report {

// One rdma_cm event of the first QP's connection, as it came.
struct CmEventRow {
    std::string event;   // "ROUTE_RESOLVED"
    std::string status;  // "0", "-110 (ETIMEDOUT)"
    double ms = 0;       // after its step began
};

// --srq (ping-pong): the side's one shared receive queue and the QPs on it.
struct SrqShared {
    std::uint32_t depth = 0;  // receives it holds
    std::uint32_t qps = 0;    // the QPs that take their receives from it
};

struct LinkHeader {
    std::string role;  // "client" or "server"
    std::string peer;  // host:port of the other side
    std::string op, transport;
    // The op is one-sided (read, the atomics): the data lands on the poster,
    // or the poster checks the target's counters; the target's CPU does nothing.
    bool one_sided = false;
    std::string device;
    std::uint32_t port = 1;
    std::uint32_t gid_index = 0;
    std::string gid_why;
    std::uint32_t mtu_bytes = 0;
    bool inline_used = false;
    std::uint32_t inline_max = 0;
    std::optional<std::uint32_t> reads_in_flight;  // --op read: the QP's max_rd_atomic
    // RC: the QPs' local ACK timeout code and transport retry count.
    std::optional<std::uint32_t> ack_timeout, retry_cnt;
    std::uint64_t iterations = 0, warmup = 0;
    std::optional<double> duration_s;
    std::string clock_source;
    // How the QPs connected: "manual" (endpoints over TCP, modify to RTS)
    // or "rdma_cm"; with rdma_cm its addresses and the first QP's events.
    std::string connection = "manual";
    std::string cm_local, cm_remote;
    std::vector<CmEventRow> cm_events;
    // The traffic class the QPs send with (RoCE v2: the IP TOS byte).
    std::uint32_t traffic_class = 0;
    std::uint32_t sl = 0, flow_label = 0, pkey_index = 0;
    // RC: RNR retries and the RNR NAK timer code.
    std::optional<std::uint32_t> rnr_retry, min_rnr_timer;
    std::uint32_t threads = 1;  // --threads: ping-pong's pairs at once, bw's worker threads
    std::vector<int> cpus;      // this side's threads' CPUs (--cpus), or -c
};

}  // namespace qps::report
