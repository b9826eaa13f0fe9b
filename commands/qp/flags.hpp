// Flags shared by `qp modify` and `qp create --to`: one per QP attribute.
#pragma once

#include <CLI/CLI.hpp>

#include "src/qp/options.hpp"

namespace qps::commands {

void add_attribute_flags(CLI::App* cmd, qp::ModifyFlags& f);

}  // namespace qps::commands
