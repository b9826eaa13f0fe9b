// qpscope's entry point, alone: main.cpp includes this and not
// commands/app.hpp, whose CLI11 would otherwise be compiled again (CLI11 is
// header-only, and every file that includes it emits its code anew).
#pragma once

namespace qps::commands {

// Parses the command line, runs one subcommand, returns the exit code.
int run(int argc, char** argv);

}  // namespace qps::commands
