// Helpers shared by the three script writers (internal to src/completion/).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/completion/completion.hpp"
#include "src/util/text.hpp"

namespace qps::completion::detail {

// Calls fn(path, command) for `root` (path "") and every command below it,
// parents first; the path of `qp create` is "qp create".
void visit(const CommandSpec& root, const std::function<void(const std::string&, const CommandSpec&)>& fn);

// The names of the subcommands of `cmd`.
std::vector<std::string> subcommand_names(const CommandSpec& cmd);

// "a b c" from {"a", "b", "c"}.
using util::join;

// `text` inside single quotes for a POSIX shell (bash, zsh): ' becomes '\''.
std::string sh_quote(std::string_view text);

// A description on one line: newlines and tabs become spaces.
std::string one_line(std::string_view text);

}  // namespace qps::completion::detail
