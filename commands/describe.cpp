#include "commands/describe.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>

#include "commands/option_values.hpp"
#include "src/error.hpp"
#include "src/util/suggest.hpp"

namespace qps::commands {

namespace {

// "{a,b,c}" -> a, b, c (the description of one_of, comma_list_of and IsMember).
std::optional<std::vector<std::string>> braced_words(const std::string& description)
{
    if (description.size() < 2 || description.front() != '{' || description.back() != '}')
        return std::nullopt;
    std::vector<std::string> words;
    std::string_view rest(description.data() + 1, description.size() - 2);
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        words.emplace_back(rest.substr(0, comma));
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    return words;
}

struct TypeKind {
    std::string_view type_name;
    completion::ValueKind kind;
};
constexpr std::array<TypeKind, 4> type_kinds{{
    {value_type::device, completion::ValueKind::device},
    {value_type::port, completion::ValueKind::port},
    {value_type::qpn, completion::ValueKind::qpn},
    {value_type::host, completion::ValueKind::host},
}};

// The option's validators: CLI11 2.1 has no count, so index until it says
// there are no more.
std::vector<CLI::Validator*> validators_of(CLI::Option& o)
{
    std::vector<CLI::Validator*> out;
    try {
        for (int i = 0;; ++i)
            out.push_back(o.get_validator(i));
    } catch (const CLI::OptionNotFound&) {
    }
    return out;
}

void describe_value(CLI::Option& o, completion::OptionSpec& spec, Values values)
{
    if (o.get_expected_max() == 0) {
        spec.kind = completion::ValueKind::flag;
        return;
    }
    spec.kind = completion::ValueKind::text;
    if (values == Values::flag_or_not)
        return;
    for (CLI::Validator* v : validators_of(o)) {
        auto words = braced_words(v->get_description());
        if (!words)
            continue;
        spec.kind = v->get_name() == comma_list_name ? completion::ValueKind::comma_list : completion::ValueKind::choice;
        spec.words = std::move(*words);
        return;
    }
    // The type name without the validators' descriptions CLI11 appends.
    const std::string type = o.get_type_name().substr(0, o.get_type_name().find(':'));
    for (const auto& t : type_kinds)
        if (type == t.type_name)
            spec.kind = t.kind;
}

completion::CommandSpec describe_command(CLI::App& app, const std::vector<completion::OptionSpec>& inherited,
                                         Values values)
{
    completion::CommandSpec cmd;
    cmd.name = app.get_name().empty() ? "qpscope" : app.get_name();
    cmd.description = app.get_description();
    for (CLI::Option* o : app.get_options()) {
        completion::OptionSpec spec;
        for (const auto& s : o->get_snames())
            spec.names.push_back("-" + s);
        for (const auto& l : o->get_lnames())
            spec.names.push_back("--" + l);
        spec.description = o->get_description();
        describe_value(*o, spec, values);
        if (o->get_group() == old_spelling_group) {  // add_old_spelling: accepted when typed, never offered
            cmd.old_spellings.push_back(std::move(spec));
            continue;
        }
        if (o->get_group().empty())
            continue;  // hidden
        if (spec.names.empty()) {
            spec.name = o->get_name();
            cmd.positionals.push_back(std::move(spec));
        } else {
            cmd.options.push_back(std::move(spec));
        }
    }
    // The parent's options, unless this command has its own of that name (--help).
    if (app.get_fallthrough())
        for (const auto& o : inherited)
            if (std::none_of(o.names.begin(), o.names.end(),
                             [&](const std::string& n) { return completion::find_option(cmd, n) != nullptr; }))
                cmd.options.push_back(o);
    for (CLI::App* sub : app.get_subcommands([](CLI::App* s) {
             return !s->get_group().empty() && !s->get_name().starts_with("__");
         }))
        cmd.subcommands.push_back(describe_command(*sub, cmd.options, values));
    return cmd;
}

}  // namespace

completion::CommandSpec describe_cli(CLI::App& app, Values values)
{
    completion::CommandSpec root = describe_command(app, {}, values);
    root.name = "qpscope";  // CLI11 names the root after argv[0] once it has parsed
    return root;
}

namespace {

[[noreturn]] void unknown_option(const completion::CommandSpec& cmd, const std::string& path, const std::string& name)
{
    std::vector<std::string> long_names, all;
    for (const auto& o : cmd.options) {
        for (const auto& n : o.names)
            if (n.starts_with("--"))
                long_names.push_back(n.substr(2));
        all.push_back(o.names.back());
    }
    if (name.starts_with("--"))
        if (auto best = util::closest(name.substr(2), long_names))
            throw UsageError(fmt::format("unknown option {}: did you mean --{}?", name, *best));
    throw UsageError(fmt::format("unknown option {}: the options of 'qpscope{}{}' are {}", name,
                                 path.empty() ? "" : " ", path, fmt::join(all, ", ")));
}

bool is_number(std::string_view word)
{
    return word.size() > 1 && (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
}

}  // namespace

namespace {

// An option as typed: a current spelling, or an old one (then one note
// naming the current one joins `notes`, when given).
const completion::OptionSpec* find_typed_option(const completion::CommandSpec& cmd, const std::string& path,
                                                std::string_view name, std::vector<std::string>* notes)
{
    if (const completion::OptionSpec* o = completion::find_option(cmd, name))
        return o;
    for (const auto& o : cmd.old_spellings)
        if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) {
            if (notes != nullptr) {
                std::string now = o.description;  // the current names, "-i,--ib-port"
                std::replace(now.begin(), now.end(), ',', '/');
                notes->push_back(fmt::format("qpscope {}: note: {} is now {} (one spelling for one thing across "
                                             "commands); the old one still works",
                                             path, fmt::join(o.names, "/"), now));
            }
            return &o;
        }
    return nullptr;
}

// Walks the words of a command line through the model: options (and the
// value each takes) are stepped over, subcommand names descend. `strict`:
// an unknown option or command throws UsageError naming the closest valid
// one; otherwise the walk stops there. Returns the command path ("qp
// create"), empty when no command was named.
std::string walk_words(const completion::CommandSpec& root, const std::vector<std::string>& args, bool strict,
                       std::vector<std::string>* notes = nullptr)
{
    const completion::CommandSpec* cmd = &root;
    std::string path;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--")
            return path;
        if (a.starts_with("--")) {  // --name, --name=value, --name value
            const std::string name = a.substr(0, a.find('='));
            const completion::OptionSpec* o = find_typed_option(*cmd, path, name, notes);
            if (!o) {
                if (strict)
                    unknown_option(*cmd, path, name);
                continue;
            }
            if (o->kind != completion::ValueKind::flag && name.size() == a.size())
                ++i;
            continue;
        }
        if (a.starts_with("-") && a.size() > 1 && !is_number(a)) {  // -d VALUE, -dVALUE, -qV
            for (std::size_t j = 1; j < a.size(); ++j) {
                const std::string name = std::string("-") + a[j];
                const completion::OptionSpec* o = find_typed_option(*cmd, path, name, notes);
                if (!o) {
                    if (strict)
                        unknown_option(*cmd, path, name);
                    break;
                }
                if (o->kind != completion::ValueKind::flag) {
                    if (j + 1 == a.size())
                        ++i;
                    break;
                }
            }
            continue;
        }
        if (cmd->subcommands.empty())
            continue;  // a positional
        if (a.starts_with("__"))
            return path;  // a hidden command: its own parser checks it
        if (const completion::CommandSpec* sub = completion::find_command(*cmd, {a})) {
            cmd = sub;
            path = path.empty() ? a : path + " " + a;
            continue;
        }
        if (!cmd->positionals.empty())
            continue;
        if (!strict)
            return path;
        std::vector<std::string> names;
        for (const auto& sub : cmd->subcommands)
            names.push_back(sub.name);
        const std::string valid_are = path.empty() ? "commands are" : path + " commands are";
        throw UsageError(util::unknown_name_message("command", a, names, valid_are));
    }
    return path;
}

}  // namespace

std::vector<std::string> check_typed_words(const completion::CommandSpec& root, const std::vector<std::string>& args)
{
    std::vector<std::string> notes;
    walk_words(root, args, true, &notes);
    return notes;
}

std::string typed_command(const completion::CommandSpec& root, const std::vector<std::string>& args)
{
    return walk_words(root, args, false);
}

void register_complete_script(CLI::App& app)
{
    auto shell_name = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("__complete-script", "");
    cmd->group("");  // hidden from --help and from the completions
    cmd->add_option("shell", *shell_name)->required()->transform(one_of({"bash", "zsh", "fish"}));
    cmd->add_option("-o,--output", *output, "Write the script to this file instead of stdout");
    cmd->callback([&app, shell_name, output] {
        const std::string text = completion::script(*completion::parse_shell(*shell_name), describe_cli(app));
        if (output->empty()) {
            std::cout << text;
            return;
        }
        std::ofstream out(*output, std::ios::trunc);
        out << text;
        out.close();
        if (!out)
            throw SystemError("writing " + *output, errno);
    });
}

}  // namespace qps::commands
