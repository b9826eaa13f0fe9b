#include "src/health/stuck.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <utility>

#include "src/decode/qp.hpp"

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

std::vector<QpVerdict> judge_qps(const std::vector<kernel::KernelQp>& after,
                                 const std::optional<std::vector<kernel::KernelQp>>& before, double interval_s)
{
    std::set<std::pair<std::string, std::uint32_t>> present;
    for (const auto& q : after)
        present.insert({q.dev_name, q.lqpn});

    std::vector<QpVerdict> out;
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
        if (before && q.state == state_rts) {
            const auto it = std::find_if(before->begin(), before->end(), [&](const kernel::KernelQp& b) {
                return b.dev_name == q.dev_name && b.lqpn == q.lqpn && b.pid == q.pid;
            });
            if (it != before->end() && it->state == q.state && it->sq_psn == q.sq_psn && it->rq_psn == q.rq_psn) {
                v.no_progress = true;
                v.notes.push_back(fmt::format("no progress in {:g} s: SQ PSN {} and RQ PSN {} did not move (idle, "
                                              "or waiting on a peer that does not answer)",
                                              interval_s, q.sq_psn.value_or(0), q.rq_psn.value_or(0)));
            }
        }
        v.stuck = v.error_state || (v.dest_missing && v.no_progress);
        out.push_back(std::move(v));
    }
    return out;
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
                  {"comm", q.comm}};
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
