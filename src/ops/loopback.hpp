// The loopback self-test of one port: two RC QPs on the port connected to
// each other in this process, by hand or through rdma_cm (a listener on an
// address of the port and a client connecting to it, as NVMe-oF would), a
// short send ping-pong between them (both ends' threads here), and
// optionally a short RDMA write bandwidth run. The same loops as ping-pong
// and bw, the QPs set with the same knobs (traffic class, SL, P_Key index,
// timeouts); bounded in time; measures, never judges (doctor's
// port.loopback finding does).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "src/verbs/discovery.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::ops {

struct LoopbackSpec {
    std::string device;            // resolved name
    std::uint32_t port = 1;
    std::uint32_t messages = 100;  // ping-pong round trips after 10 of warm-up
    std::uint32_t size = 64;
    bool bandwidth = false;        // also RDMA write, 64 KiB messages
    std::chrono::milliseconds bandwidth_time{1000};
    std::chrono::milliseconds silence_limit{3000};
    verbs::QpKnobs knobs;
    // rdma_cm: the QPs connect through it, listening on and connecting to
    // `cm_address` (an address of the port's netdev; "": not connectable).
    bool cm = false;
    std::string cm_address;
    // The device already opened (doctor's snapshot of it): both tests' QPs
    // use it. Null: the self-test opens `device` itself, once.
    verbs::SharedDevice opened;
};

struct LoopbackResult {
    bool ok = false;
    std::string error;                  // why not, when !ok
    std::string failed_call;            // the verb or system call that failed ("ibv_modify_qp(0x11 to state 2)")
    int err = 0;                        // and its errno; 0 when no call failed (e.g. a run that timed out)
    std::uint64_t round_trips = 0;
    double latency_p50_us = 0;          // one way (half the round trip), median
    std::uint32_t gid_index = 0;
    std::string gid;                    // the client QP's GID, as connected (rdma_cm's choice with cm)
    std::optional<double> write_gbps;   // with bandwidth
    std::string bandwidth_error;
};

// Never throws for a verbs failure: it is the result.
LoopbackResult run_loopback(const LoopbackSpec& spec);

}  // namespace qps::ops
