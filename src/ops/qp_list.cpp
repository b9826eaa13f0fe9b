#include "src/ops/qp_list.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/host/pid_namespace.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/net/interfaces.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::ops {

namespace {

bool kept(const QpListFilter& f, const kernel::KernelQp& q, bool held)
{
    return (f.device.empty() || q.dev_name == f.device) && (!f.state || q.state == *f.state) &&
           (!f.type || q.type == *f.type) && (!f.pid || q.pid == f.pid) && (!f.qpn || q.lqpn == *f.qpn) &&
           (!f.held_only || held);
}

// A verdict by its QP's device and QPN (views into the verdicts).
struct ListedQpKeyHash {
    std::size_t operator()(const std::pair<std::string_view, std::uint32_t>& k) const noexcept
    {
        return std::hash<std::string_view>{}(k.first) ^ (std::hash<std::uint32_t>{}(k.second) * 0x9e3779b97f4a7c15ULL);
    }
};

}  // namespace

report::KernelQpReport QpListing::report(std::size_t i) const
{
    report::KernelQpReport r = report::kernel_qp_report(qps.at(i), i < held.size() && held[i]);
    if (const auto c = consumers.find(i); c != consumers.end())
        r.consumer = c->second;
    return r;
}

QpListing list_qps(const QpListFilter& f)
{
    std::vector<std::uint32_t> held;
    for (const auto& q : list_held())
        held.push_back(q.qpn);
    const auto is_held = [&](const kernel::KernelQp& q) {
        return std::find(held.begin(), held.end(), q.lqpn) != held.end();
    };
    // With --stalled: read every 100 ms (retransmissions move PSNs back and
    // forth) and the port counters around it; its verdicts are only those
    // of QPs without progress or in ERR/SQE. Without: one reading, each
    // QP judged as it is listed (no verdict kept for the healthy ones).
    health::QpWatch watch;
    const std::vector<kernel::KernelCmId> ids = health::cm_ids_or_none();
    const bool stalled = f.stalled_s > 0;
    if (stalled)
        watch = health::watch_qps(f.stalled_s);
    else
        watch.readings = {kernel::list_kernel_qps()};
    std::optional<health::QpJudge> judge;
    std::unordered_map<std::pair<std::string_view, std::uint32_t>, const health::QpVerdict*, ListedQpKeyHash> judged;
    if (stalled) {
        for (const auto& v : watch.verdicts)
            judged.emplace(std::pair<std::string_view, std::uint32_t>{v.qp.dev_name, v.qp.lqpn}, &v);
    } else {
        judge.emplace(watch.readings, 0, ids, net::local_addresses());
    }
    const report::ConsumerIndex consumers(ids, report::read_consumer_objects);
    QpListing out;
    out.notes.nested_pid_ns = host::in_nested_pid_namespace();
    if (stalled) {
        out.notes.stalled_s = watch.seconds;
        out.notes.interrupted = watch.interrupted;
        out.notes.port_counters = watch.port_counters;
    }
    auto& last = watch.readings.back();
    std::vector<std::size_t> keep;  // indices into `last`, moved out once the judge is done with it
    for (std::size_t i = 0; i < last.size(); ++i) {
        const kernel::KernelQp& q = last[i];
        const health::QpVerdict* v = nullptr;     // --stalled: its verdict
        std::optional<health::QpFacts> facts;      // else: what its verdict would find
        if (stalled) {
            const auto it = judged.find({q.dev_name, q.lqpn});
            v = it == judged.end() ? nullptr : it->second;
            if (!v)
                continue;  // made progress, or not in ERR/SQE
        } else {
            facts = judge->facts(q);
        }
        const bool held_here = is_held(q);
        if (!kept(f, q, held_here))
            continue;
        keep.push_back(i);
        out.held.push_back(held_here);
        if (auto c = consumers.of(q))
            out.consumers.emplace(out.held.size() - 1, std::move(*c));
        if (v)
            out.notes.verdicts.push_back(*v);
        else if (facts && facts->error_state)
            out.notes.verdicts.push_back(*judge->judge(q));  // words only for those it keeps
        else if (facts && facts->dest_missing)
            ++out.notes.dest_missing;
    }
    judge.reset();
    out.qps.reserve(keep.size());
    for (std::size_t i : keep)
        out.qps.push_back(std::move(last[i]));
    return out;
}

KernelQpView query_kernel_qp(std::uint32_t qpn, const std::string& device)
{
    const std::vector<std::vector<kernel::KernelQp>> readings{kernel::list_kernel_qps()};
    const auto& all = readings.front();
    const auto it = std::find_if(all.begin(), all.end(), [&](const kernel::KernelQp& q) {
        return q.lqpn == qpn && (device.empty() || q.dev_name == device);
    });
    if (it == all.end())
        throw UsageError(fmt::format("no QP {:#x} ({}) on this host{}: 'qpscope qp list' shows them all", qpn, qpn,
                                     device.empty() ? "" : " on " + device));
    KernelQpView view{report::kernel_qp_report(*it), std::nullopt};
    const std::vector<kernel::KernelCmId> ids = health::cm_ids_or_none();
    view.qp.consumer = report::ConsumerIndex(ids, report::read_consumer_objects).of(*it);
    // *it is the first QP of its device and QPN: its verdict is the one judge_qps gives it.
    view.verdict = health::QpJudge(readings, 0, ids, net::local_addresses()).judge(*it);
    return view;
}

}  // namespace qps::ops
