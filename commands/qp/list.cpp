// `qpscope qp list`: every QP on the host (kernel view), filtered.
#include <algorithm>
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/health/stuck.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/ops/qp_session.hpp"
#include "src/qp/options.hpp"

namespace qps::cli {

namespace {
struct ListOptions {
    std::string device, state, type, qpn;
    std::optional<std::uint32_t> pid;
    bool held_only = false;
    double stalled = 0;
};
}  // namespace

void register_qp_list(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<ListOptions>();
    CLI::App* cmd = parent.add_subcommand("list", "Every QP on the host (the kernel's view, all processes); "
                                                  "those this user's holder holds are marked");
    add_device_option(cmd, o->device, DeviceUse::filter);
    cmd->add_option("--state", o->state, "Only this state: reset, init, rtr, rts, sqd, sqe, err")
        ->transform(one_of(qp::state_words()));
    cmd->add_option("-t,--type", o->type, "Only this type: rc, uc, ud")->transform(one_of(qp::qp_type_words()));
    cmd->add_option("--pid", o->pid, "Only QPs of this process");
    cmd->add_option("--qpn", o->qpn, "Only this QPN")->type_name(value_type::qpn);
    cmd->add_flag("--held", o->held_only, "Only QPs this user's holder holds");
    cmd->add_option("--stalled", o->stalled,
                    "Read the QPs twice SECONDS apart and show only those that made no progress (RTS, PSNs "
                    "unchanged) or are in ERR/SQE, each with why it may be stuck")
        ->check(CLI::Range(0.1, 3600.0))
        ->type_name("SECONDS");
    cmd->callback([o, &global] {
        std::optional<ibv_qp_state> state;
        std::optional<ibv_qp_type> type;
        std::optional<std::uint32_t> qpn;
        if (!o->state.empty())
            state = qp::parse_state(o->state, "--state");
        if (!o->type.empty())
            type = qp::parse_qp_type(o->type);
        if (!o->qpn.empty())
            qpn = qp::parse_qpn(o->qpn, "--qpn");
        std::vector<std::uint32_t> held;
        for (const auto& q : qp::list_held())
            held.push_back(q.qpn);
        // With --stalled: read every 100 ms (retransmissions move PSNs back
        // and forth) and the port counters around it. Judged on every QP of
        // the host (a destination is looked up among all), then filtered.
        health::QpWatch watch;
        if (o->stalled > 0) {
            watch = health::watch_qps(o->stalled);
        } else {
            watch.readings = {kernel::list_kernel_qps()};
            watch.verdicts = health::judge_qps(watch.readings, 0, health::cm_ids_or_none());
        }
        const bool before = watch.readings.size() > 1;
        auto all = watch.readings.back();
        const auto& verdicts = watch.verdicts;
        auto verdict_of = [&](const kernel::KernelQp& q) -> const health::QpVerdict* {
            for (const auto& v : verdicts)
                if (v.qp.dev_name == q.dev_name && v.qp.lqpn == q.lqpn)
                    return &v;
            return nullptr;
        };
        if (before)
            std::erase_if(all, [&](const kernel::KernelQp& q) {
                const auto* v = verdict_of(q);
                return !v || !(v->no_progress || v->error_state);
            });
        std::erase_if(all, [&](const kernel::KernelQp& q) {
            const bool is_held = std::find(held.begin(), held.end(), q.lqpn) != held.end();
            return (!o->device.empty() && q.dev_name != o->device) || (state && q.state != *state) ||
                   (type && q.type != *type) || (o->pid && q.pid != o->pid) || (qpn && q.lqpn != *qpn) ||
                   (o->held_only && !is_held);
        });
        fmt_out::QpListNotes notes;
        if (before) {
            notes.stalled_s = o->stalled;
            notes.port_counters = watch.port_counters;
        }
        for (const auto& q : all) {
            const auto* v = verdict_of(q);
            if (!v)
                continue;
            if (before || v->error_state)
                notes.verdicts.push_back(*v);
            else if (v->dest_missing)
                ++notes.dest_missing;
        }
        emit(global, "qp list", [&](fmt_out::Printer& p) { fmt_out::render_kernel_qps(all, held, p, notes); });
    });
}

}  // namespace qps::cli
