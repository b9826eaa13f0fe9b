// `qpscope qp ...`: the QP lifecycle, each subcommand in its own file.
#include "commands/app.hpp"
#include "commands/qp/qp.hpp"

namespace qps::commands {

void register_qp(CLI::App& app, const GlobalOptions& global)
{
    CLI::App* qp = app.add_subcommand(
        "qp", "Create, step through states, inspect and test queue pairs; the QPs live in a per-user holder "
              "process, so separate commands work on the same QP");
    qp->require_subcommand(1);
    qp->fallthrough();
    register_qp_create(*qp, global);
    register_qp_modify(*qp, global);
    register_qp_query(*qp, global);
    register_qp_list(*qp, global);
    register_qp_post(*qp, global);
    register_qp_destroy(*qp, global);
    register_qp_srq(*qp, global);
    register_qp_xrcd(*qp, global);
    register_qp_holder(app);
}

}  // namespace qps::commands
