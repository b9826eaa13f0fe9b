// The one table of how the command line spells each thing the core names
// in its own words (src/error.hpp's Given): the same option in every
// command that takes it. A core UsageError about a value the user gave is
// shown with the spelling of the command that ran.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "src/error.hpp"

namespace qps::commands {

// The option that gives it ("--send-wr"), and the other name a command
// keeps for it: perftest's in bw ("--tx-depth"), ports' --watch, which
// gives the interval and asks for the watch at once (empty: none).
std::string_view option_for(Given given);
std::string_view other_option_for(Given given);

// e's message (a UsageError's, an OperationError's) as the command that
// ran says it: each thing the core named ("the send queue depth 2000000
// exceeds ...") by its option where that command (the deepest one parsed
// under `app`) has it ("--send-wr 2000000 exceeds ..."), else in the
// core's words.
std::string spelled(const MarkedText& e, const CLI::App& app);

}  // namespace qps::commands
