// `qpscope qp list`: every QP on the host (kernel view), filtered.
#include <algorithm>
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/qp/options.hpp"
#include "src/qp/session.hpp"

namespace qps::cli {

namespace {
struct ListOptions {
    std::string device, state, type, qpn;
    std::optional<std::uint32_t> pid;
    bool held_only = false;
};
}  // namespace

void register_qp_list(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<ListOptions>();
    CLI::App* cmd = parent.add_subcommand("list", "Every QP on the host (the kernel's view, all processes); "
                                                  "those this user's holder holds are marked");
    cmd->add_option("-d,--device", o->device, "Only this device")->type_name(value_type::device);
    cmd->add_option("--state", o->state, "Only this state: reset, init, rtr, rts, sqd, sqe, err")
        ->transform(one_of(qp::state_words()));
    cmd->add_option("-t,--type", o->type, "Only this type: rc, uc, ud")->transform(one_of(qp::qp_type_words()));
    cmd->add_option("--pid", o->pid, "Only QPs of this process");
    cmd->add_option("--qpn", o->qpn, "Only this QPN")->type_name(value_type::qpn);
    cmd->add_flag("--held", o->held_only, "Only QPs this user's holder holds");
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
        auto all = kernel::list_kernel_qps();
        std::erase_if(all, [&](const kernel::KernelQp& q) {
            const bool is_held = std::find(held.begin(), held.end(), q.lqpn) != held.end();
            return (!o->device.empty() && q.dev_name != o->device) || (state && q.state != *state) ||
                   (type && q.type != *type) || (o->pid && q.pid != o->pid) || (qpn && q.lqpn != *qpn) ||
                   (o->held_only && !is_held);
        });
        emit(global, "qp list", [&](fmt_out::Printer& p) { fmt_out::render_kernel_qps(all, held, p); });
    });
}

}  // namespace qps::cli
