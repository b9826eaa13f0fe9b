// `qpscope qp list`: every QP on the host (kernel view), filtered.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/ops/qp_list.hpp"
#include "src/qp/options.hpp"

namespace qps::commands {

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
    auto* type = cmd->add_option("--transport", o->type, "Only QPs of this type (transport)")->transform(one_of(qp::qp_type_words()));
    add_old_spelling(cmd, "-t,--type", o->type, type)->transform(one_of(qp::qp_type_words()));
    cmd->add_option("--pid", o->pid, "Only QPs of this process");
    cmd->add_option("--qpn", o->qpn, "Only this QPN")->type_name(value_type::qpn);
    cmd->add_flag("--held", o->held_only, "Only QPs this user's holder holds");
    cmd->add_option("--stalled", o->stalled,
                    "Read the QPs twice SECONDS apart and show only those that made no progress (RTS, PSNs "
                    "unchanged) or are in ERR/SQE, each with why it may be stuck")
        ->check(CLI::Range(0.1, 3600.0))
        ->type_name("SECONDS");
    cmd->callback([o, &global] {
        ops::QpListFilter f;
        f.device = o->device;
        if (!o->state.empty())
            f.state = qp::parse_state(o->state, "--state");
        if (!o->type.empty())
            f.type = qp::parse_qp_type(o->type);
        if (!o->qpn.empty())
            f.qpn = qp::parse_qpn(o->qpn, "--qpn");
        f.pid = o->pid;
        f.held_only = o->held_only;
        f.stalled_s = o->stalled;
        const ops::QpListing listing = ops::list_qps(f);
        emit_streamed(global, "qp list", [&](formatters::Printer& p) { formatters::render_kernel_qps(listing, p); });
        if (listing.notes.interrupted)
            throw ReportedFailure{exit_interrupted};
    });
}

}  // namespace qps::commands
