// Stuck QPs of any process, from the kernel's view (RDMA netlink): a QP
// whose process may wait on it forever because it is in ERR or SQE, or
// because its destination QP is gone and its PSNs stopped moving. `qp list`
// (notes, --stalled) and `doctor` (qp.stuck findings) read the same
// verdicts. Pure functions of one or two samples; unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/finding.hpp"
#include "src/kernel/rdma_netlink.hpp"

namespace qps::health {

// What a verdict finds, as QpVerdict's flags of the same names.
struct QpFacts {
    bool error_state = false;
    bool dest_missing = false;
    bool no_progress = false;
    bool stuck = false;
};

struct QpVerdict {
    kernel::KernelQp qp;           // as in the last sample
    bool error_state = false;      // ERR or SQE
    bool dest_missing = false;     // RC/UC in RTR/RTS whose destination QPN is on no local device (peer not known remote)
    std::string remote_peer;       // its rdma_cm ID's destination when that is no address of this host ("192.0.2.2:4420")
    bool no_progress = false;      // RTS throughout, and neither PSN got past its earlier high mark (needs two readings)
    bool stuck = false;            // error_state, or dest_missing and no_progress
    std::optional<kernel::KernelCmId> cm_id;  // its rdma_cm ID, when it was connected through rdma_cm
    std::vector<std::string> notes;  // plain words, one per fact above
};

// One verdict per QP of a process or of a kernel consumer (nvme_rdma's,
// rpcrdma's: their owner is the QP's rdma_cm ID's; the SMI and GSI QPs of
// the management layer are left out) of the last of `readings` (in time
// order, `interval_s` from first to last). A kernel QP is judged like a
// process's: the kernel exposes the same state and PSNs for both.
//
// Progress: a QP that retransmits moves its SQ PSN back to the oldest
// unacknowledged packet and forward again, so two readings can show a
// change without progress. A QP progressed when the highest PSN (24-bit
// serial order) of the later half of the readings is past the highest of
// the earlier half, for the SQ or the RQ; many readings make the highs
// reliable, two readings compare the two values.
// `cm_ids` (from list_cm_ids()) adds each QP's rdma_cm state and addresses.
//
// Destination: a QP whose destination QPN is no QP of this host lost its
// peer only when the peer was on this host. With `local_addresses` (the
// host's IP addresses, net::local_addresses()), a QP whose rdma_cm ID's
// destination is none of them has its peer on another host: it is never
// dest_missing (an idle NVMe-oF queue to its target makes no progress and
// is healthy), it names the peer instead. Without them, or without an ID
// (a process's QP connected by other means), the destination counts as
// missing when it is not local.
using LocalAddresses = std::optional<std::set<std::string>>;

// The same verdicts one QP at a time, so that a caller of tens of
// thousands of QPs keeps only those it shows: built once over the readings
// (indexed by device and QPN, so each QP costs a few hash look-ups
// whatever the number of QPs), then judge(q) for each q of
// readings.back(); nullopt for what judge_qps leaves out (SMI, GSI).
// `readings` and `cm_ids` must outlive the judge.
class QpJudge {
public:
    QpJudge(const std::vector<std::vector<kernel::KernelQp>>& readings, double interval_s,
            const std::vector<kernel::KernelCmId>& cm_ids = {}, const LocalAddresses& local_addresses = std::nullopt);
    ~QpJudge();
    QpJudge(const QpJudge&) = delete;
    QpJudge& operator=(const QpJudge&) = delete;
    std::optional<QpVerdict> judge(const kernel::KernelQp& q) const;
    // The verdict's facts without its words (nor a copy of the QP): for a
    // caller that needs the verdict itself only for some QPs (qp list: those
    // in ERR/SQE). nullopt where judge() gives none.
    std::optional<QpFacts> facts(const kernel::KernelQp& q) const;

private:
    struct Index;
    struct Assessment {
        QpFacts facts;
        bool connected = false;                    // RC/UC in RTR, RTS or SQD
        const kernel::KernelCmId* cm_id = nullptr;  // its rdma_cm ID
        std::string remote_peer;                   // QpVerdict::remote_peer
    };
    std::optional<Assessment> assess(const kernel::KernelQp& q) const;
    bool no_progress_in_rts(const kernel::KernelQp& q) const;
    const std::vector<std::vector<kernel::KernelQp>>& readings_;
    double interval_s_;
    LocalAddresses local_addresses_;
    std::unique_ptr<Index> index_;
};

std::vector<QpVerdict> judge_qps(const std::vector<std::vector<kernel::KernelQp>>& readings, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids = {},
                                 const LocalAddresses& local_addresses = std::nullopt);
// The same for one reading (`before` nullopt: no progress check) or two.
std::vector<QpVerdict> judge_qps(const std::vector<kernel::KernelQp>& after,
                                 const std::optional<std::vector<kernel::KernelQp>>& before, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids = {},
                                 const LocalAddresses& local_addresses = std::nullopt);
// list_cm_ids(), or none when the kernel cannot say (the verdicts go on without).
std::vector<kernel::KernelCmId> cm_ids_or_none();

// Reads every QP of the host every `every_ms` for `seconds` (at least two
// readings); list_kernel_qps()'s errors pass through. SIGINT or SIGTERM
// (net/interrupt.hpp: the command installed the handlers) ends the wait
// early: the last reading is taken at once, and `seconds` says how long
// the readings really span.
struct QpReadings {
    std::vector<std::vector<kernel::KernelQp>> readings;
    double seconds = 0;
    bool interrupted = false;
};
QpReadings read_qps_over(double seconds, int every_ms = 100);
// The slot of the reading after one that ended at `now`, on a grid of
// `every`: `next` while it is still ahead, else the first slot after
// `now` (a dump slower than `every`, on a host of tens of thousands of QPs,
// skips the slots it overran, so the readings span the time asked, not a
// multiple of it).
std::chrono::steady_clock::time_point next_reading_slot(std::chrono::steady_clock::time_point next,
                                                        std::chrono::steady_clock::time_point now,
                                                        std::chrono::steady_clock::duration every);

// `qp list --stalled`: the QPs read every 100 ms for `seconds`, their
// verdicts, and what the error counters of each port with a stuck QP did
// meanwhile (the kernel cannot tell a QP's failed completion; its port's
// counters say what happened around it).
struct QpWatch {
    std::vector<std::vector<kernel::KernelQp>> readings;
    double seconds = 0;        // what the readings span (less than asked when interrupted)
    bool interrupted = false;  // SIGINT/SIGTERM ended the watch early
    std::vector<QpVerdict> verdicts;  // those of the last reading's QPs that made no progress or are in ERR/SQE
    std::vector<Finding> port_counters;  // port.counters findings of ports with a stuck QP
};
QpWatch watch_qps(double seconds);

// id "qp.stuck" (warn) for each stuck QP with its owner (a kernel QP's fix
// names its consumer's dmesg lines and the way to its peer), and one
// "qp.summary" (ok) counting the user QPs, their processes and the kernel
// consumers' QPs looked at; `nested_pid_ns` (host::in_nested_pid_namespace())
// says that the kernel showed only this PID namespace's QPs.
std::vector<Finding> qp_findings(const std::vector<QpVerdict>& verdicts, double interval_s,
                                 bool nested_pid_ns = false);
// The same one verdict at a time (add), so that only the stuck QPs'
// findings are kept: finish() gives what qp_findings() would of the
// verdicts added, in their order.
class QpFindings {
public:
    QpFindings(double interval_s, bool nested_pid_ns = false);
    void add(const QpVerdict& v);
    std::vector<Finding> finish() const;

private:
    double interval_s_;
    bool nested_pid_ns_;
    std::vector<Finding> stuck_findings_;
    std::set<std::uint32_t> pids_;
    std::set<std::string> consumers_;
    std::size_t judged_ = 0, stuck_ = 0, user_ = 0, unnamed_ = 0;
};

}  // namespace qps::health
