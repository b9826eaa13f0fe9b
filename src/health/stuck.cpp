#include "src/health/stuck.hpp"

#include <algorithm>
#include <map>
#include <fmt/format.h>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "src/decode/kernel_consumer.hpp"
#include "src/decode/qp.hpp"
#include "src/host/pid_namespace.hpp"
#include "src/net/channel.hpp"
#include "src/net/interfaces.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::health {

namespace {

constexpr std::uint8_t state_rtr = 2, state_rts = 3, state_sqd = 4, state_sqe = 5, state_err = 6;
constexpr std::uint8_t type_smi = 0, type_gsi = 1, type_rc = 2, type_uc = 3;

std::string stuck_state_name(std::uint8_t s)
{
    const auto d = decode::qp_state(s);
    return d.name ? *d.name : std::to_string(s);
}

// A kernel QP's consumer: its rdma_cm ID's owner ("nvme_rdma"), else the
// QP's own ("rdma_cm", "ib_ipoib").
std::string consumer_of(const QpVerdict& v)
{
    if (v.cm_id && !v.cm_id->comm.empty())
        return v.cm_id->comm;
    return v.qp.comm.empty() ? "the kernel" : v.qp.comm;
}

// A QP with neither a pid nor a kernel module's name: a process of another
// PID namespace than this one's (the kernel gives pids of the asker's
// namespace only), or one exiting.
bool unnamed_owner(const kernel::KernelQp& q) { return !q.pid && q.comm.empty(); }

std::string owner_text(const QpVerdict& v)
{
    const auto& q = v.qp;
    if (unnamed_owner(q))
        return "a process the kernel gives no pid for (outside this PID namespace, or exiting)";
    if (!q.pid)
        return fmt::format("the kernel's {}", consumer_of(v));
    return fmt::format("pid {} ({})", *q.pid, q.comm.empty() ? "?" : q.comm);
}

}  // namespace

namespace {

// a is after b in 24-bit PSN serial order.
bool psn_after(std::uint32_t a, std::uint32_t b)
{
    const std::uint32_t d = (a - b) & 0xffffff;
    return d != 0 && d < 0x800000;
}

// The highest of `psns` in serial order (they lie within half the space).
std::optional<std::uint32_t> psn_high(const std::vector<std::uint32_t>& psns)
{
    std::optional<std::uint32_t> high;
    for (std::uint32_t p : psns)
        if (!high || psn_after(p, *high))
            high = p;
    return high;
}

// One PSN of one QP across the readings that have it, in time order.
bool psn_progressed(const std::vector<std::uint32_t>& psns)
{
    if (psns.size() < 2)
        return false;
    const std::size_t half = psns.size() / 2;
    const auto early = psn_high({psns.begin(), psns.begin() + static_cast<std::ptrdiff_t>(half)});
    const auto late = psn_high({psns.begin() + static_cast<std::ptrdiff_t>(half), psns.end()});
    return early && late && psn_after(*late, *early);
}

// What the QP's rdma_cm ID says: its state and addresses, and what the
// state means for a QP that is `stuck`.
std::string cm_id_note(const kernel::KernelCmId& cm, bool stuck)
{
    const std::string state = kernel::cm_state_name(cm.state);
    std::string note = fmt::format("rdma_cm: {}{}", state,
                                   cm.src.empty() && cm.dst.empty()
                                       ? std::string()
                                       : fmt::format(", {} -> {}", cm.src.empty() ? "?" : cm.src,
                                                     cm.dst.empty() ? "?" : cm.dst));
    if (state == "DISCONNECT")
        note += " (the connection was torn down: the peer disconnected, or its process died)";
    else if (state == "CONNECT" && stuck)
        note += " (the connection manager still counts it connected: it heard nothing from the peer)";
    return note;
}

}  // namespace

struct QpJudge::Index {
    // A QP by device and QPN (and owner), as string views into the readings.
    struct Key {
        std::string_view dev;
        std::uint32_t qpn = 0;
        std::optional<std::uint32_t> pid;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const noexcept
        {
            const std::uint64_t n = (std::uint64_t{k.qpn} << 33) | (k.pid ? (std::uint64_t{*k.pid} << 1) | 1 : 0);
            const std::size_t h = std::hash<std::string_view>{}(k.dev);
            return h ^ (std::hash<std::uint64_t>{}(n) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
        }
    };
    // The last reading's QPs by (device, QPN): is a destination QP on this host?
    std::unordered_set<Key, KeyHash> present;
    // Each QP's rdma_cm ID by (device, QPN), the first of the list's.
    std::unordered_map<Key, const kernel::KernelCmId*, KeyHash> cm_of;
    // Per reading (when there are two or more): each QP by (device, QPN,
    // owner), the first of the reading's.
    std::vector<std::unordered_map<Key, const kernel::KernelQp*, KeyHash>> in_reading;
};

QpJudge::QpJudge(const std::vector<std::vector<kernel::KernelQp>>& readings, double interval_s,
                 const std::vector<kernel::KernelCmId>& cm_ids, const LocalAddresses& local_addresses)
    : readings_(readings), interval_s_(interval_s), local_addresses_(local_addresses), index_(std::make_unique<Index>())
{
    if (readings.empty())
        return;
    index_->present.reserve(readings.back().size());
    for (const auto& q : readings.back())
        index_->present.insert({q.dev_name, q.lqpn, std::nullopt});
    for (const auto& c : cm_ids)
        if (c.lqpn)
            index_->cm_of.emplace(Index::Key{c.dev_name, *c.lqpn, std::nullopt}, &c);
    if (readings.size() < 2)
        return;
    index_->in_reading.resize(readings.size());
    for (std::size_t r = 0; r < readings.size(); ++r) {
        auto& m = index_->in_reading[r];
        m.reserve(readings[r].size());
        for (const auto& q : readings[r])
            m.emplace(Index::Key{q.dev_name, q.lqpn, q.pid}, &q);
    }
}

QpJudge::~QpJudge() = default;

std::optional<QpJudge::Assessment> QpJudge::assess(const kernel::KernelQp& q) const
{
    if (!q.pid && (q.type == type_smi || q.type == type_gsi))
        return std::nullopt;  // the special QPs of the kernel's management (MAD) layer
    const Index& ix = *index_;
    Assessment a;
    if (const auto cm = ix.cm_of.find({q.dev_name, q.lqpn, std::nullopt}); cm != ix.cm_of.end())
        a.cm_id = cm->second;
    a.facts.error_state = q.state == state_err || q.state == state_sqe;
    a.connected = (q.type == type_rc || q.type == type_uc) &&
                  (q.state == state_rtr || q.state == state_rts || q.state == state_sqd);
    if (a.connected && a.cm_id && !a.cm_id->dst.empty() && local_addresses_ &&
        !local_addresses_->count(net::host_of(a.cm_id->dst)))
        a.remote_peer = a.cm_id->dst;
    a.facts.dest_missing = a.connected && q.rqpn && a.remote_peer.empty() &&
                           !ix.present.count({q.dev_name, *q.rqpn, std::nullopt});
    a.facts.no_progress = readings_.size() >= 2 && q.state == state_rts && no_progress_in_rts(q);
    a.facts.stuck = a.facts.error_state || (a.facts.dest_missing && a.facts.no_progress);
    return a;
}

std::optional<QpFacts> QpJudge::facts(const kernel::KernelQp& q) const
{
    const auto a = assess(q);
    return a ? std::optional<QpFacts>(a->facts) : std::nullopt;
}

std::optional<QpVerdict> QpJudge::judge(const kernel::KernelQp& q) const
{
    const auto a = assess(q);
    if (!a)
        return std::nullopt;
    QpVerdict v;
    v.qp = q;
    if (a->cm_id)
        v.cm_id = *a->cm_id;
    v.error_state = a->facts.error_state;
    v.dest_missing = a->facts.dest_missing;
    v.no_progress = a->facts.no_progress;
    v.stuck = a->facts.stuck;
    v.remote_peer = a->remote_peer;
    if (v.error_state) {
        if (!q.pid && !unnamed_owner(q)) {
            const auto* known = decode::find_kernel_consumer(consumer_of(v));
            v.notes.push_back(fmt::format(
                "in {}: a work request failed; the kernel's {} got the failed completion{}",
                q.state == state_err ? "ERR" : "SQE", consumer_of(v),
                known ? fmt::format(" and recovers by itself: {}", known->recovery)
                      : ": what it does next is in its own log lines"));
        } else {
            v.notes.push_back(
                q.state == state_err
                    ? "in ERR: a work request failed (for example retry exceeded when the peer stopped "
                      "answering); the owner got the failed completion, the kernel did not keep its status; "
                      "nothing flows until the owner destroys or resets the QP"
                    : "in SQE: a send failed; the receive side still works, the owner must move the QP back "
                      "to RTS");
        }
    }
    if (a->connected && q.rqpn && !v.remote_peer.empty()) {
        v.notes.push_back(fmt::format("destination QP {:#x} is on {}, another host: only that host can say whether "
                                      "it lives ('qpscope qp list' there, 'qpscope path {}' from here)",
                                      *q.rqpn, v.remote_peer, net::host_of(v.remote_peer)));
    } else if (v.dest_missing) {
        v.notes.push_back(fmt::format("destination QP {:#x} is not on {}: if its peer ran on this host, it is "
                                      "gone (its process died or destroyed it); if the peer is remote, look "
                                      "there",
                                      *q.rqpn, q.dev_name));
    }
    if (v.no_progress) {
        v.notes.push_back(fmt::format("no progress in {:g} s: SQ PSN {} and RQ PSN {} got no further "
                                      "(idle, or retrying towards a peer that does not answer)",
                                      interval_s_, q.sq_psn.value_or(0), q.rq_psn.value_or(0)));
    }
    if (v.cm_id)
        v.notes.push_back(cm_id_note(*v.cm_id, v.stuck));
    return v;
}

// The same QP (device, QPN, owner) in RTS in every reading, and neither
// its SQ PSN nor its RQ PSN moved on.
bool QpJudge::no_progress_in_rts(const kernel::KernelQp& q) const
{
    std::vector<std::uint32_t> sq, rq;
    for (const auto& reading : index_->in_reading) {
        const auto it = reading.find({q.dev_name, q.lqpn, q.pid});
        if (it == reading.end() || it->second->state != state_rts)
            return false;
        if (it->second->sq_psn)
            sq.push_back(*it->second->sq_psn);
        if (it->second->rq_psn)
            rq.push_back(*it->second->rq_psn);
    }
    return !psn_progressed(sq) && !psn_progressed(rq);
}

std::vector<QpVerdict> judge_qps(const std::vector<std::vector<kernel::KernelQp>>& readings, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids, const LocalAddresses& local_addresses)
{
    std::vector<QpVerdict> out;
    if (readings.empty())
        return out;
    const QpJudge judge(readings, interval_s, cm_ids, local_addresses);
    for (const auto& q : readings.back())
        if (auto v = judge.judge(q))
            out.push_back(std::move(*v));
    return out;
}

std::vector<QpVerdict> judge_qps(const std::vector<kernel::KernelQp>& after,
                                 const std::optional<std::vector<kernel::KernelQp>>& before, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids, const LocalAddresses& local_addresses)
{
    std::vector<std::vector<kernel::KernelQp>> readings;
    if (before)
        readings.push_back(*before);
    readings.push_back(after);
    return judge_qps(readings, interval_s, cm_ids, local_addresses);
}

std::vector<kernel::KernelCmId> cm_ids_or_none()
{
    try {
        return kernel::list_cm_ids();
    } catch (const std::exception&) {
        return {};
    }
}

namespace {

// Where to look for a stuck QP's failed completion: a process's own log,
// or a kernel consumer's dmesg lines and the way to its peer.
void why_and_fix(const QpVerdict& v, Finding& f)
{
    std::string why;
    for (const auto& n : v.notes)
        why += (why.empty() ? "" : "; ") + n;
    const auto& q = v.qp;
    if (unnamed_owner(q)) {
        f.why = why + "; the owner may wait on it forever";
        f.fix = "the failed completion is known only to the owner, a process this PID namespace cannot name: "
                "`qpscope qp list` on the host (or `nsenter -t 1 -p qpscope qp list`) names its pid";
        return;
    }
    if (q.pid) {
        f.why = why + "; the owner may wait on it forever";
        f.fix = fmt::format("the failed completion is known only to the owner: look at {}'s log for its status "
                            "(e.g. 12 = retry exceeded: the peer stopped answering); the port counters show what "
                            "the port saw; if the owner hangs, stop it (kill {})",
                            owner_text(v), *q.pid);
        return;
    }
    const std::string consumer = consumer_of(v);
    const auto* known = decode::find_kernel_consumer(consumer);
    f.why = why + fmt::format("; I/O of {} through it waits until it recovers or gives up",
                              known ? known->what : consumer);
    std::string fix = fmt::format("the kernel's {} got the failed completion: its own words say what it saw and "
                                  "does (`dmesg | grep -i {} | qpscope explain --log -`)",
                                  consumer, known ? known->log_word : consumer);
    if (v.cm_id && !v.cm_id->dst.empty())
        fix += fmt::format("; the way to its peer {}: `qpscope path {}` (with `qpscope path` serving there)",
                           v.cm_id->dst, net::host_of(v.cm_id->dst));
    if (consumer == "nvme_rdma")
        fix += "; storage.nvme_rdma names its controller and the controller's state";
    f.fix = fix;
}

}  // namespace

QpFindings::QpFindings(double interval_s, bool nested_pid_ns) : interval_s_(interval_s), nested_pid_ns_(nested_pid_ns)
{
}

void QpFindings::add(const QpVerdict& v)
{
    ++judged_;
    if (v.qp.pid) {
        pids_.insert(*v.qp.pid);
        ++user_;
    } else if (unnamed_owner(v.qp)) {
        ++unnamed_;
    } else {
        consumers_.insert(consumer_of(v));
    }
    if (!v.stuck)
        return;
    ++stuck_;
    const auto& q = v.qp;
    Finding f;
    f.id = "qp.stuck";
    f.status = Status::warn;
    f.device = q.dev_name;
    if (q.port)
        f.port = q.port;
    f.seen = {{"qpn", fmt::format("{:#x}", q.lqpn)},
              {"state", stuck_state_name(q.state)},
              {"dest_qpn", q.rqpn ? fmt::format("{:#x}", *q.rqpn) : "-"},
              {"sq_psn", q.sq_psn ? std::to_string(*q.sq_psn) : "-"},
              {"rq_psn", q.rq_psn ? std::to_string(*q.rq_psn) : "-"},
              {"pid", q.pid ? std::to_string(*q.pid) : "-"},
              {"comm", q.comm},
              {"comm_raw", util::hex_bytes(q.comm)}};
    if (!q.pid && !unnamed_owner(q))
        f.seen.emplace_back("consumer", consumer_of(v));
    if (v.cm_id && !v.cm_id->dst.empty())
        f.seen.emplace_back("remote", v.cm_id->dst);
    f.summary = fmt::format("QP {:#x} of {} is stuck: {}", q.lqpn, owner_text(v),
                            v.error_state ? stuck_state_name(q.state)
                                          : fmt::format("destination QP {:#x} gone, no progress in {:g} s",
                                                        q.rqpn.value_or(0), interval_s_));
    why_and_fix(v, f);
    stuck_findings_.push_back(std::move(f));
}

std::vector<Finding> QpFindings::finish() const
{
    std::vector<Finding> out = stuck_findings_;
    const std::size_t user = user_, unnamed = unnamed_, stuck = stuck_;
    const bool nested_pid_ns = nested_pid_ns_;
    const std::size_t kernel_qps = judged_ - user - unnamed;
    std::string names;
    for (const auto& c : consumers_)
        names += (names.empty() ? "" : ", ") + c;
    Finding sum;
    sum.id = "qp.summary";
    sum.status = Status::ok;
    sum.seen = {{"user_qps", std::to_string(user)},
                {"processes", std::to_string(pids_.size())},
                {"kernel_qps", std::to_string(kernel_qps)},
                {"kernel_consumers", names},
                {"unnamed_qps", std::to_string(unnamed)},
                {"stuck", std::to_string(stuck)},
                {"pid_namespace", nested_pid_ns ? "nested" : "host"}};
    // Without a pid: outside this PID namespace (nested), else exiting.
    const std::string unnamed_text =
        unnamed == 0 ? std::string()
                     : fmt::format(", {} QP{} of {}", unnamed, unnamed == 1 ? "" : "s",
                                   nested_pid_ns ? "processes outside this PID namespace" : "exiting processes");
    sum.summary = fmt::format("{} user QP{} of {} process{}, {}{}; {} stuck", user, user == 1 ? "" : "s", pids_.size(),
                              pids_.size() == 1 ? "" : "es",
                              kernel_qps == 0 ? std::string("no kernel consumer's QPs")
                                              : fmt::format("{} kernel QP{} ({})", kernel_qps,
                                                            kernel_qps == 1 ? "" : "s", names),
                              unnamed_text, stuck == 0 ? std::string("none") : std::to_string(stuck));
    if (nested_pid_ns)
        sum.why = host::pid_namespace_note();
    out.push_back(std::move(sum));
    return out;
}

std::vector<Finding> qp_findings(const std::vector<QpVerdict>& verdicts, double interval_s, bool nested_pid_ns)
{
    QpFindings findings(interval_s, nested_pid_ns);
    for (const auto& v : verdicts)
        findings.add(v);
    return findings.finish();
}

}  // namespace qps::health
