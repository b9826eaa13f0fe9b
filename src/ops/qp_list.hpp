// `qp list` and `qp query`'s kernel view: every QP of the host (RDMA
// netlink), filtered, each decoded once, with what health/stuck.hpp says of
// the ones that made no progress or failed.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/health/stuck.hpp"
#include "src/report/kernel_qp.hpp"

namespace qps::ops {

// What `qp list` keeps; every member unset keeps everything.
struct QpListFilter {
    std::string device;
    std::optional<ibv_qp_state> state;
    std::optional<ibv_qp_type> type;
    std::optional<std::uint32_t> pid, qpn;
    bool held_only = false;
    // > 0: read the QPs every 100 ms for this long and keep only those that
    // made no progress (RTS, PSNs unchanged) or are in ERR/SQE.
    double stalled_s = 0;
};

// What `qp list` says beyond its table.
struct QpListNotes {
    std::vector<health::QpVerdict> verdicts;     // the QPs to say something about, in table order
    std::optional<double> stalled_s;             // --stalled: the sampling interval (less when interrupted)
    bool interrupted = false;                    // --stalled: SIGINT/SIGTERM ended the watch early
    std::size_t dest_missing = 0;                // without --stalled: connected QPs whose destination is not local
    std::vector<Finding> port_counters;  // --stalled: the counters of ports with a stuck QP
    bool nested_pid_ns = false;          // pids only of this PID namespace's processes (host/pid_namespace.hpp)
};

// The QPs kept, in the kernel's order, each decoded only when it is shown
// (report(i)): a decoded report takes ~0.7 KB, and a host may hold tens
// of thousands of QPs.
struct QpListing {
    std::vector<kernel::KernelQp> qps;
    std::vector<bool> held;  // qps[i] is held by this user's holder (missing: not held)
    std::unordered_map<std::size_t, report::QpConsumer> consumers;  // qps[i]'s, for those that have one
    QpListNotes notes;
    report::KernelQpReport report(std::size_t i) const;
};

// Judged on every QP of the host (a destination is looked up among all),
// then filtered. list_kernel_qps()'s errors pass through.
QpListing list_qps(const QpListFilter& filter);

// One QP of the kernel's view, and what health/stuck.hpp says of it.
struct KernelQpView {
    report::KernelQpReport qp;
    std::optional<health::QpVerdict> verdict;
};

// QP `qpn` (on `device`, "" = any) in the kernel's view; UsageError when
// the host has none.
KernelQpView query_kernel_qp(std::uint32_t qpn, const std::string& device);

}  // namespace qps::ops
