// `qpscope qp query QPN`: a held QP decoded in full, or any QP on the host
// through the kernel's RDMA netlink view.
#include <algorithm>
#include <fmt/format.h>
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/error.hpp"
#include "src/health/stuck.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::cli {

namespace {
struct QueryOptions {
    std::string qpn;
    std::string device;
};
}  // namespace

void register_qp_query(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<QueryOptions>();
    CLI::App* cmd = parent.add_subcommand(
        "query", "Every attribute of a QP, decoded; QPs of other processes through the kernel's RDMA netlink "
                 "view; a diagnosis for QPs in ERR or SQE");
    cmd->add_option("qpn", o->qpn, "QP number (hex 0x.. or decimal)")->required()->type_name(value_type::qpn);
    add_device_option(cmd, o->device, DeviceUse::qpn_owner);
    cmd->callback([o, &global] {
        const std::uint32_t qpn = qp::parse_qpn(o->qpn);
        if (auto held = qp::query_held(qpn); held && (o->device.empty() || held->device == o->device)) {
            emit(global, "qp query", [&](fmt_out::Printer& p) { fmt_out::render_qp(*held, p); });
            return;
        }
        const auto all = kernel::list_kernel_qps();
        auto it = std::find_if(all.begin(), all.end(), [&](const kernel::KernelQp& q) {
            return q.lqpn == qpn && (o->device.empty() || q.dev_name == o->device);
        });
        if (it == all.end())
            throw UsageError(fmt::format("no QP {:#x} ({}) on this host{}: 'qpscope qp list' shows them all", qpn,
                                         qpn, o->device.empty() ? "" : " on " + o->device));
        emit(global, "qp query", [&](fmt_out::Printer& p) {
            fmt_out::ObjectScope scope(p, "qp", fmt::format("QP {:#x} ({}) on {} — kernel view (not held by "
                                                            "you: attributes beyond these need its owner)",
                                                            qpn, qpn, it->dev_name));
            p.field("held", "held by this user's holder", false);
            const auto verdicts = health::judge_qps(all, std::nullopt, 0, health::cm_ids_or_none());
            const auto v = std::find_if(verdicts.begin(), verdicts.end(), [&](const health::QpVerdict& x) {
                return x.qp.lqpn == it->lqpn && x.qp.dev_name == it->dev_name;
            });
            fmt_out::render_kernel_qp(*it, p, v == verdicts.end() ? nullptr : &*v);
        });
    });
}

}  // namespace qps::cli
