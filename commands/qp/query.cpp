// `qpscope qp query QPN`: a held QP decoded in full, or any QP on the host
// through the kernel's RDMA netlink view.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/ops/qp_list.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::commands {

namespace {
struct QueryOptions {
    std::string qpn;
    std::string device;
    std::string xrcd;
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
    cmd->add_option("--xrcd", o->xrcd, "An xrc-recv QP of another process: open it by number in the XRC domain on "
                                       "FILE (ibv_open_qp, the modern ibv_query_xrc_rcv_qp) and query it; needs a "
                                       "device with XRC")
        ->type_name("FILE");
    cmd->callback([o, &global] {
        const std::uint32_t qpn = qp::parse_qpn(o->qpn);
        if (!o->xrcd.empty()) {
            const report::QpReport r = ops::query_xrc(qpn, o->device, absolute_path(o->xrcd));
            emit(global, "qp query", [&](formatters::Printer& p) { formatters::render_qp(r, p); });
            return;
        }
        if (auto held = ops::query_held(qpn); held && (o->device.empty() || held->device == o->device)) {
            emit(global, "qp query", [&](formatters::Printer& p) { formatters::render_qp(*held, p); });
            return;
        }
        const ops::KernelQpView view = ops::query_kernel_qp(qpn, o->device);
        emit(global, "qp query", [&](formatters::Printer& p) { formatters::render_kernel_qp_view(view, p); });
    });
}

}  // namespace qps::commands
