// Shell completion scripts (bash, zsh, fish) written from a plain model of
// the command line. The model is built from the CLI11 definition itself
// (commands/describe.cpp), so the scripts cannot drift from the parser;
// CMake runs `qpscope __complete-script SHELL` at build time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qps::completion {

// What an option's (or a positional's) value is, i.e. what to offer for it.
enum class ValueKind {
    flag,        // takes no value
    text,        // any value: nothing to offer
    choice,      // one of `words`
    comma_list,  // a comma-separated list of `words`
    device,      // an RDMA device on this host (/sys/class/infiniband)
    port,        // a port of the device given with --device (or of any device)
    qpn,         // a QP held by this user's holder (`qpscope --json qp list --held`)
    host,        // a host name
};

struct OptionSpec {
    std::vector<std::string> names;  // "-d", "--device"; empty for a positional
    std::string name;                // positional: its name (e.g. "qpn")
    std::string description;
    ValueKind kind = ValueKind::flag;
    std::vector<std::string> words;  // choice, comma_list
};

struct CommandSpec {
    std::string name;  // "qpscope", "qp", "create"
    std::string description;
    // Every option valid here, including those inherited from the parent
    // commands (CLI11's fallthrough), in definition order.
    std::vector<OptionSpec> options;
    std::vector<OptionSpec> positionals;
    std::vector<CommandSpec> subcommands;
    // Old spellings (hidden options): accepted when typed, never offered.
    std::vector<OptionSpec> old_spellings;
};

enum class Shell { bash, zsh, fish };

// "bash", "zsh", "fish" -> Shell.
std::optional<Shell> parse_shell(std::string_view name);

std::string bash_script(const CommandSpec& root);
std::string zsh_script(const CommandSpec& root);
std::string fish_script(const CommandSpec& root);
std::string script(Shell shell, const CommandSpec& root);

// The command at `path` below `root` ({"qp", "create"}), or nullptr.
const CommandSpec* find_command(const CommandSpec& root, const std::vector<std::string>& path);
// The option of `cmd` named `name` ("--device", "-d"), or nullptr.
const OptionSpec* find_option(const CommandSpec& cmd, std::string_view name);

}  // namespace qps::completion
