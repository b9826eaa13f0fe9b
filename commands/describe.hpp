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
//
// Values::all reads what each option's value is (its words, a device, a
// QPN...: the completions need them); Values::flag_or_not only whether it
// takes one, all check_typed_words and typed_command look at. The words
// are read from the option's validators, which CLI11 2.1 gives only by
// index, one exception past the last: a throw for every option with a
// value, about a tenth of a start's instructions (callgrind, `qp list`),
// which run() spares every command.
enum class Values { all, flag_or_not };
completion::CommandSpec describe_cli(CLI::App& app, Values values = Values::all);

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
