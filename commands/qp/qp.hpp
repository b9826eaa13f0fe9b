#pragma once

#include <CLI/CLI.hpp>

#include "commands/app.hpp"
#include "commands/emit.hpp"

namespace qps::commands {

void register_qp_create(CLI::App& qp, const GlobalOptions& global);
void register_qp_modify(CLI::App& qp, const GlobalOptions& global);
void register_qp_query(CLI::App& qp, const GlobalOptions& global);
void register_qp_list(CLI::App& qp, const GlobalOptions& global);
void register_qp_post(CLI::App& qp, const GlobalOptions& global);
void register_qp_destroy(CLI::App& qp, const GlobalOptions& global);
void register_qp_srq(CLI::App& qp, const GlobalOptions& global);
void register_qp_xrcd(CLI::App& qp, const GlobalOptions& global);
// The hidden `__holder` command that `qp create` starts in the background.
void register_qp_holder(CLI::App& app);

}  // namespace qps::commands
