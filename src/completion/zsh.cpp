// The zsh completion script: one function per command, each an _arguments
// call; commands with subcommands dispatch on the word after them.
#include <fmt/format.h>

#include "src/completion/completion.hpp"
#include "src/completion/writer.hpp"

namespace qps::completion {

namespace {

using detail::join;
using detail::sh_quote;

// Text inside an _arguments [explanation] or message: escapes what ends it.
std::string spec_text(std::string_view text)
{
    std::string out;
    for (char c : detail::one_line(text)) {
        if (c == '\\' || c == '[' || c == ']' || c == ':')
            out += '\\';
        out += c;
    }
    return out;
}

// A word inside an _arguments (a b c) list.
std::string list_word(std::string_view word)
{
    std::string out;
    for (char c : word) {
        if (c == '\\' || c == '(' || c == ')' || c == ' ' || c == ':' || c == '$' || c == '`')
            out += '\\';
        out += c;
    }
    return out;
}

std::string function_name(const std::string& path)
{
    std::string out = path.empty() ? "_qpscope" : "_qpscope__";
    for (char c : path)
        out += c == ' ' ? std::string("__") : c == '-' ? std::string("_") : std::string(1, c);
    return out;
}

// The :message:action part of a spec.
std::string zsh_value_part(const OptionSpec& o, const std::string& message, const std::string& device_options)
{
    const std::string m = spec_text(message.empty() ? "value" : message);
    switch (o.kind) {
    case ValueKind::flag:
        return {};
    case ValueKind::text:
        return ":" + m + ": ";
    case ValueKind::choice: {
        std::vector<std::string> words;
        for (const auto& w : o.words)
            words.push_back(list_word(w));
        return fmt::format(":{}:({})", m, join(words));
    }
    case ValueKind::comma_list: {
        std::vector<std::string> words;
        for (const auto& w : o.words)
            words.push_back(list_word(w));
        return fmt::format(":{}:_values -s , {} {}", m, list_word(message), join(words));
    }
    case ValueKind::device:
        return ":" + m + ":_qpscope_devices";
    case ValueKind::port:
        return ":" + m + ":_qpscope_ports" + (device_options.empty() ? "" : " " + device_options);
    case ValueKind::qpn:
        return ":" + m + ":_qpscope_qpns";
    case ValueKind::host:
        return ":" + m + ":_hosts";
    }
    return ":" + m + ": ";
}

std::string message_of(const OptionSpec& o)
{
    if (!o.name.empty())
        return o.name;
    for (const auto& n : o.names)
        if (n.starts_with("--"))
            return n.substr(2);
    return o.names.empty() ? "value" : o.names.front().substr(1);
}

// The _arguments specs of one command's options, one per name.
std::vector<std::string> option_specs(const CommandSpec& cmd)
{
    std::vector<std::string> device_names;
    for (const auto& o : cmd.options)
        if (o.kind == ValueKind::device)
            device_names.insert(device_names.end(), o.names.begin(), o.names.end());
    const std::string device_options = join(device_names);

    std::vector<std::string> specs;
    for (const auto& o : cmd.options) {
        const std::string exclusion = o.names.size() > 1 ? fmt::format("({})", join(o.names)) : std::string();
        const std::string value = zsh_value_part(o, message_of(o), device_options);
        for (const auto& n : o.names) {
            // --long=VALUE, -s VALUE; flags take none.
            const std::string_view suffix = o.kind == ValueKind::flag ? "" : n.starts_with("--") ? "=" : "+";
            specs.push_back(sh_quote(fmt::format("{}{}{}[{}]{}", exclusion, n, suffix, spec_text(o.description),
                                                 value)));
        }
    }
    return specs;
}

std::string command_function(const std::string& path, const CommandSpec& cmd)
{
    std::vector<std::string> specs = option_specs(cmd);
    if (!cmd.subcommands.empty()) {
        specs.push_back(sh_quote("1: :->command"));
        specs.push_back(sh_quote("*:: :->args"));
    } else {
        for (std::size_t i = 0; i < cmd.positionals.size(); ++i) {
            const OptionSpec& p = cmd.positionals[i];
            specs.push_back(sh_quote(fmt::format("{}{}", i + 1, zsh_value_part(p, message_of(p), ""))));
        }
    }

    std::string out = fmt::format("{}()\n{{\n", function_name(path));
    out += "    local curcontext=\"$curcontext\" state state_descr line ret=1\n"
           "    typeset -A opt_args\n";
    if (path.empty())
        out += "    local _qpscope_bin=${words[1]/#\\~/$HOME}  # the qpscope being completed\n";
    out += "    _arguments -C -s -S \\\n";
    for (const auto& s : specs)
        out += "        " + s + " \\\n";
    out += "        && ret=0\n";
    if (!cmd.subcommands.empty()) {
        const std::string title = path.empty() ? "qpscope command" : "qpscope " + path + " command";
        out += "    case $state in\n        command)\n            local -a commands\n            commands=(\n";
        for (const auto& s : cmd.subcommands)
            out += "                " + sh_quote(list_word(s.name) + ":" + detail::one_line(s.description)) + "\n";
        out += fmt::format("            )\n            _describe -t commands {} commands && ret=0 ;;\n",
                           sh_quote(title));
        out += "        args)\n";
        out += fmt::format("            curcontext=\"${{curcontext%:*:*}}:qpscope{}-$words[1]:\"\n",
                           path.empty() ? "" : "-" + path);
        out += "            case $words[1] in\n";
        for (const auto& s : cmd.subcommands) {
            const std::string sub_path = path.empty() ? s.name : path + " " + s.name;
            out += fmt::format("                {}) {} && ret=0 ;;\n", sh_quote(s.name), function_name(sub_path));
        }
        out += "            esac ;;\n    esac\n";
    }
    out += "    return ret\n}\n";
    return out;
}

constexpr std::string_view zsh_header = R"script(#compdef qpscope
# zsh completion for qpscope. Generated by `qpscope __complete-script zsh`
# from qpscope's command-line definition when qpscope is built: do not edit;
# change the definition.

# RDMA devices on this host (the sysfs root may be moved for tests).
_qpscope_devices()
{
    local -a devices
    devices=(${QPSCOPE_SYSFS_ROOT:-/sys}/class/infiniband/*(N:t))
    _describe -t devices 'RDMA device' devices
}

# _qpscope_ports [DEVICE-OPTION...]: the ports of the device given with one
# of these options, or of every device.
_qpscope_ports()
{
    local dev="" o
    for o in "$@"; do
        [[ -n ${opt_args[$o]} ]] && dev=${opt_args[$o]}
    done
    local -a ports
    ports=(${QPSCOPE_SYSFS_ROOT:-/sys}/class/infiniband/${dev:-*}/ports/*(N:t))
    ports=(${(onu)ports})
    _describe -t ports 'port' ports
}

# The QPNs this user's holder holds, asked of the qpscope being completed.
_qpscope_qpns()
{
    local -a qpns
    qpns=(${(f)"$(${_qpscope_bin:-qpscope} --json qp list --held 2>/dev/null |
        tr -d '\n' | grep -oE '"qpn": *\{[^}]*\}' | sed -E 's/.*"name": *"([^"]*)".*/\1/')"})
    _describe -t qpns 'held QP' qpns
}
)script";

constexpr std::string_view zsh_footer = R"script(
if [[ $funcstack[1] == _qpscope ]]; then
    _qpscope "$@"
else
    compdef _qpscope qpscope
fi
)script";

}  // namespace

std::string zsh_script(const CommandSpec& root)
{
    std::string out(zsh_header);
    detail::visit(root, [&](const std::string& path, const CommandSpec& cmd) {
        out += '\n';
        out += command_function(path, cmd);
    });
    out += zsh_footer;
    return out;
}

}  // namespace qps::completion
