// What an option's values are, said once where the option is registered:
// the words it accepts (checked, shown in --help, offered by the shell
// completions) and the kind of thing it names (a device, a port, a QPN, a
// host), as the option's type name.
//
//   cmd->add_option("--op", f->op, "...")->transform(one_of(perf::op_words()));
//   cmd->add_option("--access", f.access, "...")->check(comma_list_of(qp::access_words()))->type_name("LIST");
//   add_device_option(cmd, o->device, DeviceUse::filter);
//
// commands/describe.cpp reads all of this back from the CLI11 definition;
// a plain CLI::IsMember check is read back the same way as one_of.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace qps::commands {

// Type names (shown in --help) that tell the completions what to offer.
namespace value_type {
inline constexpr const char* device = "DEVICE";  // an RDMA device on this host
inline constexpr const char* port = "PORT";      // a port of the device
inline constexpr const char* qpn = "QPN";        // a QP held by this user's holder
inline constexpr const char* host = "HOST";      // a host name
}  // namespace value_type

// What -d,--device means to a command: the one option registered in one
// place (add_device_option), its help text from this list.
enum class DeviceUse {
    choose,     // the device to use (default: the first)
    filter,     // only this device's ports, QPs or checks
    qpn_owner,  // which device a QPN belongs to, when QPNs repeat
    mesh_rank,  // each rank's device
};
// -d,--device into `device`, type DEVICE, with the help text of `use`.
CLI::Option* add_device_option(CLI::App* cmd, std::string& device, DeviceUse use);

// An option's old spelling, kept working for the scripts that use it: it
// sets the same variable as `current` (give it the same checks) and
// excludes it; its group hides it from --help (commands/app.cpp's
// formatter) and from the completions (commands/describe.cpp), and its
// description is the current spelling, which the note names when it is
// typed (check_typed_words, before the parse):
//   qpscope ports: note: -p/--port is now -i/--ib-port (one spelling for one thing across commands); the old one still works
// What was renamed, in one table: CHANGELOG.md, "One spelling for one thing".
inline constexpr const char* old_spelling_group = "Old spellings";
template <class T>
CLI::Option* add_old_spelling(CLI::App* cmd, const std::string& old_names, T& value, CLI::Option* current);

// Validator names the completions look for.
inline constexpr std::string_view one_of_name = "one-of";
inline constexpr std::string_view comma_list_name = "comma-list";
inline constexpr std::string_view suggest_name = "suggest";

// Exactly one of `words`, in any case; the value becomes the word as listed
// (register it with ->transform(), as ->check() may not change the value).
// Its description is "{a,b,c}", as CLI::IsMember's; an error names the value,
// the words and the closest one ("--op: 'sned' is not one of send, write,
// read; did you mean 'send'?").
CLI::Validator one_of(std::vector<std::string> words);

// A file the holder opens (an XRC domain's): made absolute against this
// command's working directory, as the holder runs elsewhere; "" stays "".
std::string absolute_path(const std::string& path);

// Words the completions offer for a value that may also be something else
// (`explain wc-status` takes RETRY_EXC_ERR or 12): recorded for --help and
// the completions only, checked by the command.
CLI::Validator suggest_words(std::vector<std::string> words);

// A comma-separated list of `words`: recorded for --help and the completions
// only; the command's own parser checks the list (it knows more forms, such
// as "none").
CLI::Validator comma_list_of(std::vector<std::string> words);

template <class T>
CLI::Option* add_old_spelling(CLI::App* cmd, const std::string& old_names, T& value, CLI::Option* current)
{
    CLI::Option* old = cmd->add_option(old_names, value, current->get_name(false, true))
                           ->group(old_spelling_group)
                           ->type_name(current->get_type_name());
    old->excludes(current);
    current->remove_excludes(old);  // CLI11 excludes both ways; --help would name the old one
    return old;
}

}  // namespace qps::commands
