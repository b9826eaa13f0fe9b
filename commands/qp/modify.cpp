// `qpscope qp modify QPN`: one state step, checked before the verb is called.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/flags.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/error.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::commands {

namespace {
struct ModifyOptions {
    std::string qpn;
    bool dry_run = false;
    ModifyFlags flags;
};
}  // namespace

void register_qp_modify(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<ModifyOptions>();
    CLI::App* cmd = parent.add_subcommand(
        "modify", "Move a held QP to another state or change its attributes; the request is checked against the "
                  "IB transition rules and the device and port first, and a failed check names the attribute");
    cmd->add_option("qpn", o->qpn, "QP number (hex 0x.. or decimal)")->required()->type_name(value_type::qpn);
    cmd->add_option("--state", o->flags.state, "Target state: reset, init, rtr, rts, sqd, sqe, err")
        ->transform(one_of(qp::state_words()));
    cmd->add_option("--cur-state", o->flags.cur_state, "Assumed current state (only where the rules allow it)")
        ->transform(one_of(qp::state_words()));
    cmd->add_flag("--dry-run", o->dry_run, "Check and print the attribute struct and mask, send nothing");
    add_attribute_flags(cmd, o->flags);
    cmd->callback([o, &global] {
        const std::uint32_t qpn = qp::parse_qpn(o->qpn);
        const ops::ModifyOutcome outcome = ops::modify_qp(qpn, parse_modify_flags(o->flags), o->dry_run);
        emit(global, "qp modify", [&](formatters::Printer& p) { formatters::render_modify(outcome, p); });
        if (outcome.refused_errno)
            throw ReportedFailure{exit_failed};
    });
}

}  // namespace qps::commands
