// `qpscope qp destroy QPN|--all`.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/error.hpp"
#include "src/ops/qp_session.hpp"
#include "src/qp/options.hpp"

namespace qps::commands {

namespace {
struct DestroyOptions {
    std::string qpn;
    bool all = false;
};
}  // namespace

void register_qp_destroy(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<DestroyOptions>();
    CLI::App* cmd = parent.add_subcommand("destroy", "Destroy a held QP, or all of them (--all); the holder "
                                                     "exits after its last QP and releases everything");
    auto* qpn = cmd->add_option("qpn", o->qpn, "QP number (hex 0x.. or decimal)")->type_name(value_type::qpn);
    auto* all = cmd->add_flag("--all", o->all, "Destroy every held QP and stop the holder");
    qpn->excludes(all);
    cmd->callback([o, &global] {
        if (o->qpn.empty() && !o->all)
            throw UsageError("qp destroy: give a QPN or --all");
        std::optional<std::uint32_t> qpn;
        if (!o->all)
            qpn = qp::parse_qpn(o->qpn);
        const ops::DestroyOutcome outcome = ops::destroy_qps(qpn);
        emit(global, "qp destroy", [&](formatters::Printer& p) { formatters::render_destroy(outcome, p); });
    });
}

}  // namespace qps::commands
