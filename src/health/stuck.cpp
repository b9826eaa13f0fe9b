#include "src/health/stuck.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <set>
#include <utility>

#include "src/decode/qp.hpp"
#include "src/health/counter_checks.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/net/interrupt.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::health {

namespace {

constexpr std::uint8_t state_rtr = 2, state_rts = 3, state_sqd = 4, state_sqe = 5, state_err = 6;
constexpr std::uint8_t type_rc = 2, type_uc = 3;

std::string stuck_state_name(std::uint8_t s)
{
    const auto d = decode::qp_state(s);
    return d.name ? *d.name : std::to_string(s);
}

std::string owner_text(const kernel::KernelQp& q)
{
    if (!q.pid)
        return q.comm.empty() ? "the kernel" : q.comm;
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

// The same QP (device, QPN, owner) in RTS in every reading, and neither
// its SQ PSN nor its RQ PSN moved on.
bool no_progress_in_rts(const std::vector<std::vector<kernel::KernelQp>>& readings, const kernel::KernelQp& q)
{
    std::vector<std::uint32_t> sq, rq;
    for (const auto& reading : readings) {
        const auto it = std::find_if(reading.begin(), reading.end(), [&](const kernel::KernelQp& b) {
            return b.dev_name == q.dev_name && b.lqpn == q.lqpn && b.pid == q.pid;
        });
        if (it == reading.end() || it->state != state_rts)
            return false;
        if (it->sq_psn)
            sq.push_back(*it->sq_psn);
        if (it->rq_psn)
            rq.push_back(*it->rq_psn);
    }
    return !psn_progressed(sq) && !psn_progressed(rq);
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

std::vector<QpVerdict> judge_qps(const std::vector<std::vector<kernel::KernelQp>>& readings, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids)
{
    std::vector<QpVerdict> out;
    if (readings.empty())
        return out;
    const auto& after = readings.back();
    std::set<std::pair<std::string, std::uint32_t>> present;
    for (const auto& q : after)
        present.insert({q.dev_name, q.lqpn});

    for (const auto& q : after) {
        if (!q.pid)
            continue;  // the kernel's own QPs (GSI, ...)
        QpVerdict v;
        v.qp = q;
        if (q.state == state_err || q.state == state_sqe) {
            v.error_state = true;
            v.notes.push_back(
                q.state == state_err
                    ? "in ERR: a work request failed (for example retry exceeded when the peer stopped "
                      "answering); the owner got the failed completion, the kernel did not keep its status; "
                      "nothing flows until the owner destroys or resets the QP"
                    : "in SQE: a send failed; the receive side still works, the owner must move the QP back "
                      "to RTS");
        }
        const bool connected = (q.type == type_rc || q.type == type_uc) &&
                               (q.state == state_rtr || q.state == state_rts || q.state == state_sqd);
        if (connected && q.rqpn && !present.count({q.dev_name, *q.rqpn})) {
            v.dest_missing = true;
            v.notes.push_back(fmt::format("destination QP {:#x} is not on {}: if its peer ran on this host, it is "
                                          "gone (its process died or destroyed it); if the peer is remote, look "
                                          "there",
                                          *q.rqpn, q.dev_name));
        }
        if (readings.size() >= 2 && q.state == state_rts && no_progress_in_rts(readings, q)) {
            v.no_progress = true;
            v.notes.push_back(fmt::format("no progress in {:g} s: SQ PSN {} and RQ PSN {} got no further "
                                          "(idle, or retrying towards a peer that does not answer)",
                                          interval_s, q.sq_psn.value_or(0), q.rq_psn.value_or(0)));
        }
        v.stuck = v.error_state || (v.dest_missing && v.no_progress);
        const auto cm = std::find_if(cm_ids.begin(), cm_ids.end(), [&](const kernel::KernelCmId& c) {
            return c.lqpn == q.lqpn && c.dev_name == q.dev_name;
        });
        if (cm != cm_ids.end()) {
            v.cm_id = *cm;
            v.notes.push_back(cm_id_note(*cm, v.stuck));
        }
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<QpVerdict> judge_qps(const std::vector<kernel::KernelQp>& after,
                                 const std::optional<std::vector<kernel::KernelQp>>& before, double interval_s,
                                 const std::vector<kernel::KernelCmId>& cm_ids)
{
    std::vector<std::vector<kernel::KernelQp>> readings;
    if (before)
        readings.push_back(*before);
    readings.push_back(after);
    return judge_qps(readings, interval_s, cm_ids);
}

std::vector<kernel::KernelCmId> cm_ids_or_none()
{
    try {
        return kernel::list_cm_ids();
    } catch (const std::exception&) {
        return {};
    }
}

QpReadings read_qps_over(double seconds, int every_ms)
{
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto end = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
    QpReadings r;
    r.readings.push_back(kernel::list_kernel_qps());
    bool on = true;
    for (auto next = start + std::chrono::milliseconds(every_ms); on && next < end;
         next += std::chrono::milliseconds(every_ms)) {
        on = net::sleep_unless_interrupted(next);
        if (on)
            r.readings.push_back(kernel::list_kernel_qps());
    }
    r.interrupted = !(on && net::sleep_unless_interrupted(end));
    r.readings.push_back(kernel::list_kernel_qps());
    r.seconds = std::chrono::duration<double>(clock::now() - start).count();
    if (!r.interrupted)
        r.seconds = seconds;  // as asked: the rates are per the interval the user gave
    return r;
}

QpWatch watch_qps(double seconds)
{
    struct PortCounters {
        std::string device;
        std::uint32_t port;
        kernel::CounterSet counters, hw_counters;
    };
    std::vector<PortCounters> ports;
    for (const auto& q : kernel::list_kernel_qps()) {
        if (!q.pid || q.port == 0)
            continue;
        if (std::none_of(ports.begin(), ports.end(),
                         [&](const PortCounters& p) { return p.device == q.dev_name && p.port == q.port; }))
            ports.push_back({q.dev_name, q.port, kernel::read_port_counters(q.dev_name, q.port, "counters"),
                             kernel::read_port_counters(q.dev_name, q.port, "hw_counters")});
    }
    QpWatch w;
    QpReadings r = read_qps_over(seconds);
    w.readings = std::move(r.readings);
    w.seconds = r.seconds;
    w.interrupted = r.interrupted;
    w.verdicts = judge_qps(w.readings, w.seconds, cm_ids_or_none());
    for (const auto& p : ports) {
        const bool has_stuck = std::any_of(w.verdicts.begin(), w.verdicts.end(), [&](const QpVerdict& v) {
            return v.stuck && v.qp.dev_name == p.device && v.qp.port == p.port;
        });
        if (!has_stuck)
            continue;
        for (const char* subdir : {"counters", "hw_counters"}) {
            const auto& before = std::string_view(subdir) == "counters" ? p.counters : p.hw_counters;
            const auto after = kernel::read_port_counters(p.device, p.port, subdir);
            for (auto& f : rising_counter_findings(p.device, p.port, before, after, subdir, w.seconds))
                if (f.status != Status::skipped)
                    w.port_counters.push_back(std::move(f));
        }
    }
    return w;
}

std::vector<Finding> qp_findings(const std::vector<QpVerdict>& verdicts, double interval_s)
{
    std::vector<Finding> out;
    std::set<std::uint32_t> pids;
    std::size_t stuck = 0;
    for (const auto& v : verdicts) {
        if (v.qp.pid)
            pids.insert(*v.qp.pid);
        if (!v.stuck)
            continue;
        ++stuck;
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
        f.summary = fmt::format("QP {:#x} of {} is stuck: {}", q.lqpn, owner_text(q),
                                v.error_state ? stuck_state_name(q.state)
                                              : fmt::format("destination QP {:#x} gone, no progress in {:g} s",
                                                            q.rqpn.value_or(0), interval_s));
        std::string why;
        for (const auto& n : v.notes)
            why += (why.empty() ? "" : "; ") + n;
        f.why = why + "; the owner may wait on it forever";
        f.fix = fmt::format("the failed completion is known only to the owner: look at {}'s log for its status "
                            "(e.g. 12 = retry exceeded: the peer stopped answering); the port counters show what "
                            "the port saw; if the owner hangs, stop it (kill {})",
                            owner_text(q), q.pid ? std::to_string(*q.pid) : "PID");
        out.push_back(std::move(f));
    }
    Finding sum;
    sum.id = "qp.summary";
    sum.status = Status::ok;
    sum.seen = {{"user_qps", std::to_string(verdicts.size())},
                {"processes", std::to_string(pids.size())},
                {"stuck", std::to_string(stuck)}};
    sum.summary = fmt::format("{} user QP{} of {} process{}; {} stuck", verdicts.size(),
                              verdicts.size() == 1 ? "" : "s", pids.size(), pids.size() == 1 ? "" : "es",
                              stuck == 0 ? std::string("none") : std::to_string(stuck));
    out.push_back(std::move(sum));
    return out;
}

}  // namespace qps::health
