// The command line: global options, subcommand registration, and the one
// place where errors become messages and exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "formatters/printer.hpp"

namespace qps::cli {

enum ExitCode : int { exit_ok = 0, exit_failed = 1, exit_usage = 2, exit_timeout = 3 };

struct GlobalOptions {
    bool json = false;
    std::string color = "auto";  // auto | always | never

    fmt_out::PrinterOptions printer() const;
};

// Each subcommand lives in its own file and registers itself here.
void register_ports(CLI::App& app, const GlobalOptions& global);
void register_qp(CLI::App& app, const GlobalOptions& global);
void register_ping_pong(CLI::App& app, const GlobalOptions& global);
void register_bw(CLI::App& app, const GlobalOptions& global);

// Builds the whole command line (used by main and by the CLI tests).
void build_app(CLI::App& app, GlobalOptions& global);

int run(int argc, char** argv);

}  // namespace qps::cli
