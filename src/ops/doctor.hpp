// `qpscope doctor`: every check of this host in the order an experienced
// engineer would run them: kernel modules and devices, device access and
// who holds each device, locked memory, each port (state, link against
// --expect, GIDs, RoCE v2 address and MTU), error counters read twice,
// stuck QPs of every process, and a loopback self-test per ACTIVE port
// (skipped where qpscope cannot connect QPs: iWARP).
// The checks are the ones ping-pong, bw and qp create run (local.hpp), so a
// fault reads the same wherever it is found.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/finding.hpp"
#include "src/health/port_checks.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::ops {

struct DoctorOptions {
    std::string device;                // "" = every device
    std::optional<std::uint32_t> port; // nullopt = every port
    health::Expect expect;
    double interval_s = 1.0;           // between the two counter and QP samples
    bool loopback = true;              // the self-test per ACTIVE port
    bool loopback_bw = false;          // and a short RDMA write bandwidth run
    // The loopback's QPs: connected through rdma_cm (to an address of the
    // port's netdev) instead of by hand, and set with these knobs.
    bool loopback_cm = false;
    verbs::QpKnobs knobs;
    // Locked memory the memlock check asks for; 0: what a default
    // `qpscope bw` test registers.
    std::uint64_t memlock_needed = 0;
    // Called before each slow step ("reading counters again in 1 s").
    std::function<void(const std::string&)> progress;
};

struct DoctorReport {
    std::vector<Finding> findings;     // host-wide first, then by device and port
    double interval_s = 0;             // what the counters' readings span (--interval, less when interrupted)
    bool interrupted = false;          // SIGINT/SIGTERM ended the interval: the findings so far, no self-test
};

// Throws UsageError for an unknown device or port; everything the host does
// wrong is a finding.
DoctorReport run_doctor(const DoctorOptions& o);

struct DoctorCounts {
    std::size_t ok = 0, warn = 0, fail = 0, skipped = 0;
};
DoctorCounts count_findings(const DoctorReport& r);
// A finding that makes the host unhealthy: a failure, or with `strict` a
// warning too.
bool counts_against(const Finding& f, bool strict);
// 0: nothing counts against the host; 1 otherwise.
int doctor_exit_code(const DoctorReport& r, bool strict);

}  // namespace qps::ops
