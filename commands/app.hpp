// The command line: global options, subcommand registration, and the one
// place where errors become messages and exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "commands/run.hpp"
#include "formatters/printer.hpp"
#include "src/exit_code.hpp"

namespace qps::commands {

// The codes: src/exit_code.hpp (shared with qpscope-mesh).
using qps::ExitCode;
using qps::exit_ok;
using qps::exit_failed;
using qps::exit_usage;
using qps::exit_timeout;
using qps::exit_interrupted;

// The code of a run that ended early with a partial report: interrupted
// (SIGINT/SIGTERM) or timeout/lost peer.
int aborted_run_exit_code();

struct GlobalOptions {
    bool json = false;
    bool quiet = false;          // --quiet: no informational lines on stderr
    std::string color = "auto";  // auto | always | never

    formatters::PrinterOptions printer() const;
    // One informational line on stderr (progress, a note), dropped under
    // --quiet. Errors and warnings never go through here.
    void info(std::string_view line) const;
};

// Whether the table output is coloured: "always", "never", or "auto": only
// when stdout is a terminal and NO_COLOR is unset or empty (no-color.org).
bool color_enabled(std::string_view mode, bool stdout_is_terminal, const char* no_color);

// Each subcommand lives in its own file and registers itself here.
void register_ports(CLI::App& app, const GlobalOptions& global);
void register_qp(CLI::App& app, const GlobalOptions& global);
// `qp` with only the subcommand `sub` ("list"), or all of them when `sub`
// names none (the parser then names the closest).
void register_qp_one(CLI::App& app, const GlobalOptions& global, std::string_view sub);
void register_cm(CLI::App& app, const GlobalOptions& global);
void register_ping_pong(CLI::App& app, const GlobalOptions& global);
void register_bw(CLI::App& app, const GlobalOptions& global);
void register_doctor(CLI::App& app, const GlobalOptions& global);
void register_path(CLI::App& app, const GlobalOptions& global);
void register_explain(CLI::App& app, const GlobalOptions& global);
void register_mesh(CLI::App& app, const GlobalOptions& global);
void register_watch(CLI::App& app, const GlobalOptions& global);

// Builds the command line (used by main and by the CLI tests): every
// command, or with `only` one top-level command (a word of
// command_words()). Each command's options cost their CLI11 objects at every
// start, and under the emulated lab a start of the whole tree costs about
// 0.3 s of CPU: run() builds only the command that was typed. With
// `only_sub` too (the word after `only`'s, "list" in `qp list`), a group of
// commands that can (`qp`) builds only that one of its subcommands.
void build_app(CLI::App& app, GlobalOptions& global, std::string_view only = {}, std::string_view only_sub = {});

// The top-level words build_app can build alone: the commands, and the
// hidden __holder (which lives with qp). __complete-script describes the
// whole tree, so it is not one of them.
std::vector<std::string_view> command_words();

// The global options that take a value ("--color"), as build_app adds them.
std::vector<std::string> global_options_with_value();

// The top-level command word of argv, when the words before it are global
// options (--json, -q, --color VALUE: global_options_with_value() says
// which take one); empty when there is none, or when a help flag comes
// before it (the top-level help lists every command).
std::string_view typed_command_word(int argc, char** argv);
// That word and the next word that is not an option (the subcommand's, or
// a positional; empty when there is none), found the same way: the global
// options (and their values) between them are stepped over.
std::array<std::string_view, 2> typed_command_words(int argc, char** argv);

// run(): commands/run.hpp.

}  // namespace qps::commands
