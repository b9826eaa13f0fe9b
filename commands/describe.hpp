// The command line as a plain model, read back from the CLI11 definition:
// subcommands, options with their names and the kind of their values,
// positionals. The shell completions are written from it, and the
// "did you mean" errors check typed words against it.
#pragma once

#include <CLI/CLI.hpp>

#include "src/completion/completion.hpp"

namespace qps::commands {

// Hidden commands (`__holder`, `__complete-script`) and hidden options
// (empty group) are left out. Options a subcommand inherits from its parents
// (CLI11's fallthrough) are listed with its own.
completion::CommandSpec describe_cli(CLI::App& app);

// Checks the words of a command line (argv without argv[0]) against the
// model before CLI11 parses them, so that a mistyped subcommand or option is
// named with the closest valid one: "unknown command 'prots': did you mean
// 'ports'? commands are ports, qp, cm, ping-pong", "unknown option --devcie: did
// you mean --device?". Throws UsageError; words after a hidden command
// (`__...`) or after "--" are not checked. Returns one note per old
// spelling typed (add_old_spelling), naming the current one.
std::vector<std::string> check_typed_words(const completion::CommandSpec& root, const std::vector<std::string>& args);

// The command path the words name, as the JSON documents' "command" member
// has it ("ports", "qp create"), or "" when they name none (`qpscope
// prots`). Never throws: it stops at the first word it does not know.
std::string typed_command(const completion::CommandSpec& root, const std::vector<std::string>& args);

// The hidden `qpscope __complete-script bash|zsh|fish [-o FILE]` that prints
// the completion script for `app` (CMake runs it at build time).
void register_complete_script(CLI::App& app);

}  // namespace qps::commands
