#include "src/ops/qp_list.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/host/pid_namespace.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/net/interfaces.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::ops {

namespace {

const health::QpVerdict* verdict_of(const std::vector<health::QpVerdict>& verdicts, const kernel::KernelQp& q)
{
    for (const auto& v : verdicts)
        if (v.qp.dev_name == q.dev_name && v.qp.lqpn == q.lqpn)
            return &v;
    return nullptr;
}

bool kept(const QpListFilter& f, const kernel::KernelQp& q, bool held)
{
    return (f.device.empty() || q.dev_name == f.device) && (!f.state || q.state == *f.state) &&
           (!f.type || q.type == *f.type) && (!f.pid || q.pid == f.pid) && (!f.qpn || q.lqpn == *f.qpn) &&
           (!f.held_only || held);
}

}  // namespace

QpListing list_qps(const QpListFilter& f)
{
    std::vector<std::uint32_t> held;
    for (const auto& q : list_held())
        held.push_back(q.qpn);
    const auto is_held = [&](const kernel::KernelQp& q) {
        return std::find(held.begin(), held.end(), q.lqpn) != held.end();
    };
    // With --stalled: read every 100 ms (retransmissions move PSNs back and
    // forth) and the port counters around it.
    health::QpWatch watch;
    const std::vector<kernel::KernelCmId> ids = health::cm_ids_or_none();
    if (f.stalled_s > 0) {
        watch = health::watch_qps(f.stalled_s);
    } else {
        watch.readings = {kernel::list_kernel_qps()};
        watch.verdicts = health::judge_qps(watch.readings, 0, ids, net::local_addresses());
    }
    const report::ConsumerIndex consumers(ids, report::read_consumer_objects());
    const bool stalled = watch.readings.size() > 1;
    QpListing out;
    out.notes.nested_pid_ns = host::in_nested_pid_namespace();
    if (stalled) {
        out.notes.stalled_s = watch.seconds;
        out.notes.interrupted = watch.interrupted;
        out.notes.port_counters = watch.port_counters;
    }
    for (const auto& q : watch.readings.back()) {
        const health::QpVerdict* v = verdict_of(watch.verdicts, q);
        if (stalled && (!v || !(v->no_progress || v->error_state)))
            continue;
        const bool held_here = is_held(q);
        if (!kept(f, q, held_here))
            continue;
        out.qps.push_back(report::kernel_qp_report(q, held_here));
        out.qps.back().consumer = consumers.of(q);
        if (!v)
            continue;
        if (stalled || v->error_state)
            out.notes.verdicts.push_back(*v);
        else if (v->dest_missing)
            ++out.notes.dest_missing;
    }
    return out;
}

KernelQpView query_kernel_qp(std::uint32_t qpn, const std::string& device)
{
    const auto all = kernel::list_kernel_qps();
    const auto it = std::find_if(all.begin(), all.end(), [&](const kernel::KernelQp& q) {
        return q.lqpn == qpn && (device.empty() || q.dev_name == device);
    });
    if (it == all.end())
        throw UsageError(fmt::format("no QP {:#x} ({}) on this host{}: 'qpscope qp list' shows them all", qpn, qpn,
                                     device.empty() ? "" : " on " + device));
    KernelQpView view{report::kernel_qp_report(*it), std::nullopt};
    const std::vector<kernel::KernelCmId> ids = health::cm_ids_or_none();
    view.qp.consumer = report::ConsumerIndex(ids, report::read_consumer_objects()).of(*it);
    const auto verdicts = health::judge_qps(all, std::nullopt, 0, ids, net::local_addresses());
    if (const auto* v = verdict_of(verdicts, *it))
        view.verdict = *v;
    return view;
}

}  // namespace qps::ops
