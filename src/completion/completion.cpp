#include "src/completion/completion.hpp"

#include <algorithm>

#include "src/completion/writer.hpp"

namespace qps::completion {

std::optional<Shell> parse_shell(std::string_view name)
{
    if (name == "bash")
        return Shell::bash;
    if (name == "zsh")
        return Shell::zsh;
    if (name == "fish")
        return Shell::fish;
    return std::nullopt;
}

std::string script(Shell shell, const CommandSpec& root)
{
    switch (shell) {
    case Shell::bash:
        return bash_script(root);
    case Shell::zsh:
        return zsh_script(root);
    case Shell::fish:
        return fish_script(root);
    }
    return {};
}

const CommandSpec* find_command(const CommandSpec& root, const std::vector<std::string>& path)
{
    const CommandSpec* cmd = &root;
    for (const auto& name : path) {
        auto it = std::find_if(cmd->subcommands.begin(), cmd->subcommands.end(),
                               [&](const CommandSpec& c) { return c.name == name; });
        if (it == cmd->subcommands.end())
            return nullptr;
        cmd = &*it;
    }
    return cmd;
}

const OptionSpec* find_option(const CommandSpec& cmd, std::string_view name)
{
    for (const auto& o : cmd.options)
        if (std::find(o.names.begin(), o.names.end(), name) != o.names.end())
            return &o;
    return nullptr;
}

namespace detail {

namespace {
void visit_at(const std::string& path, const CommandSpec& cmd,
              const std::function<void(const std::string&, const CommandSpec&)>& fn)
{
    fn(path, cmd);
    for (const auto& sub : cmd.subcommands)
        visit_at(path.empty() ? sub.name : path + " " + sub.name, sub, fn);
}
}  // namespace

void visit(const CommandSpec& root, const std::function<void(const std::string&, const CommandSpec&)>& fn)
{
    visit_at("", root, fn);
}

std::vector<std::string> subcommand_names(const CommandSpec& cmd)
{
    std::vector<std::string> out;
    for (const auto& s : cmd.subcommands)
        out.push_back(s.name);
    return out;
}

std::string sh_quote(std::string_view text)
{
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string one_line(std::string_view text)
{
    std::string out(text);
    std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\t' || c == '\r'; }, ' ');
    return out;
}

}  // namespace detail

}  // namespace qps::completion
