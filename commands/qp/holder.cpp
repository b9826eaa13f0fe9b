// The hidden `__holder` command: the background process `qp create` starts.
#include "commands/qp/qp.hpp"
#include "src/error.hpp"
#include "src/ops/holder.hpp"

namespace qps::commands {

void register_qp_holder(CLI::App& app)
{
    auto o = std::make_shared<ops::HolderOptions>();
    auto idle = std::make_shared<unsigned>(600);
    CLI::App* cmd = app.add_subcommand("__holder", "");
    cmd->group("");  // hidden from --help
    cmd->add_option("--dir", o->dir)->required();
    cmd->add_option("--idle", *idle);
    cmd->callback([o, idle] {
        o->idle = std::chrono::seconds(*idle);
        throw ReportedFailure{ops::run_holder(*o)};
    });
}

}  // namespace qps::commands
