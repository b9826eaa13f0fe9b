#include "commands/app.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <unistd.h>

#include "commands/describe.hpp"
#include "commands/option_values.hpp"
#include "commands/spellings.hpp"
#include "formatters/json_value.hpp"
#include "src/config.hpp"
#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/ops/version.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::commands {

bool color_enabled(std::string_view mode, bool stdout_is_terminal, const char* no_color)
{
    if (mode == "always")
        return true;
    if (mode == "never")
        return false;
    return stdout_is_terminal && (no_color == nullptr || *no_color == '\0');
}

formatters::PrinterOptions GlobalOptions::printer() const
{
    return {json, color_enabled(color, ::isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR"))};
}

void GlobalOptions::info(std::string_view line) const
{
    if (!quiet)
        std::cerr << util::escape_text(line) << '\n';
}

namespace {

// CLI11's help, without the old spellings (add_old_spelling): they work,
// and are not offered.
class HelpFormatter : public CLI::Formatter {
public:
    std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override
    {
        if (group == old_spelling_group)
            return {};
        return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
    }
};

}  // namespace

namespace {

// The top-level commands, each by the words that name it on the command
// line (tests/unit/cli/test_cli.cpp checks that each builds the command it
// names).
struct CommandEntry {
    std::array<std::string_view, 2> words;
    void (*add)(CLI::App&, const GlobalOptions&);
    // A group of subcommands that can build one of them alone, named by
    // the word after the command's (build_app's `only_sub`).
    void (*add_one)(CLI::App&, const GlobalOptions&, std::string_view sub) = nullptr;
};
constexpr std::array<CommandEntry, 10> commands{{
    {{"ports", ""}, register_ports},
    {{"qp", "__holder"}, register_qp, register_qp_one},
    {{"cm", ""}, register_cm},
    {{"ping-pong", ""}, register_ping_pong},
    {{"bw", ""}, register_bw},
    {{"doctor", ""}, register_doctor},
    {{"path", ""}, register_path},
    {{"explain", ""}, register_explain},
    {{"mesh", ""}, register_mesh},
    {{"watch", ""}, register_watch},
}};

// The options before the command word (--json, --color, ...): build_app's,
// and typed_command_word's way to know which of them take a value.
void add_global_options(CLI::App& app, GlobalOptions& global)
{
    app.add_flag("--json", global.json, "Print one JSON document (errors too) instead of a table");
    app.add_option("--color", global.color, "Colour the table output: auto (on a terminal, unless NO_COLOR "
                                            "is set), always, never")
        ->transform(one_of({"auto", "always", "never"}));
    app.add_flag("-q,--quiet", global.quiet,
                 "Print no informational lines (progress) on stderr; errors are still printed. doctor and "
                 "path: only one line per problem");
}

}  // namespace

void build_app(CLI::App& app, GlobalOptions& global, std::string_view only, std::string_view only_sub)
{
    const std::vector<std::string_view> words = command_words();
    if (std::ranges::find(words, only) == words.end())
        only = {};  // not a command: build them all (the parser names the closest one)
    app.formatter(std::make_shared<HelpFormatter>());
    app.description("qpscope: RDMA diagnostics and queue-pair inspection");
    app.footer("Exit codes: 0 success, 1 the operation failed, 2 bad usage or input, 3 timeout or lost peer, "
               "4 interrupted (SIGINT or SIGTERM).\n"
               "Without RDMA hardware: lab/qpscope-lab qpscope ports   (boots a Soft-RoCE VM)");
    app.require_subcommand(1);
    app.fallthrough();
    // Made when asked for: finding libibverbs's version reads links on disk.
    app.set_version_flag("-V,--version", std::function<std::string()>([] {
                             return fmt::format("qpscope {} (running with {})", QPSCOPE_VERSION,
                                                ops::libibverbs_version());
                         }));
    add_global_options(app, global);
    for (const CommandEntry& c : commands) {
        if (!only.empty() && std::ranges::find(c.words, only) == c.words.end())
            continue;
        if (c.add_one && !only.empty() && c.words.front() == only && !only_sub.empty())
            c.add_one(app, global, only_sub);
        else
            c.add(app, global);
    }
    if (only.empty())
        register_complete_script(app);
}

std::vector<std::string_view> command_words()
{
    std::vector<std::string_view> out;
    for (const CommandEntry& c : commands)
        for (std::string_view w : c.words)
            if (!w.empty())
                out.push_back(w);
    return out;
}

std::vector<std::string> global_options_with_value()
{
    CLI::App app;
    GlobalOptions global;
    add_global_options(app, global);
    std::vector<std::string> out;
    for (const CLI::Option* o : app.get_options())
        if (o->get_items_expected_max() > 0) {
            for (const std::string& name : o->get_lnames())
                out.push_back("--" + name);
            for (const std::string& name : o->get_snames())
                out.push_back("-" + name);
        }
    return out;
}

std::array<std::string_view, 2> typed_command_words(int argc, char** argv)
{
    const std::vector<std::string> with_value = global_options_with_value();
    std::array<std::string_view, 2> out;
    std::size_t n = 0;
    for (int i = 1; i < argc && n < out.size(); ++i) {
        const std::string_view a = argv[i];
        if (a == "--" || a == "-h" || a == "--help" || a == "--help-all")
            break;
        if (std::ranges::find(with_value, a) != with_value.end()) {
            ++i;  // its value, which is no command
            continue;
        }
        if (a.starts_with("-"))
            continue;
        out[n++] = a;
    }
    return out;
}

std::string_view typed_command_word(int argc, char** argv) { return typed_command_words(argc, argv)[0]; }

namespace {

// --json, or `ports --format json` / `--format=json`: errors in JSON too.
bool argv_has_json(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0 || std::strcmp(argv[i], "--format=json") == 0)
            return true;
        if (std::strcmp(argv[i], "--format") == 0 && i + 1 < argc && std::strcmp(argv[i + 1], "json") == 0)
            return true;
    }
    return false;
}

// `command`: the command path typed ("qp create"); empty when the error
// came before any command was named, which JSON shows as null.
int report_error(bool json, const std::string& command, std::string_view kind, const std::string& message, int code)
{
    if (json) {
        nlohmann::ordered_json j;
        j["schema_version"] = formatters::schema_version;
        j["command"] = command.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(command);
        // An exception's message can quote bytes from outside (a name, a
        // peer's text): the same rule as every other string.
        j["error"] = {{"kind", kind}, {"message", util::to_utf8(message)}, {"exit_code", code}};
        std::cout << util::json_text(j, 2) << '\n';
    } else {
        std::cerr << "qpscope: " << util::escape_text(message) << '\n';
    }
    return code;
}

}  // namespace

int aborted_run_exit_code() { return net::interrupt_pending() ? exit_interrupted : exit_timeout; }

namespace {

// A failure that came after SIGINT/SIGTERM is the interrupt's doing (a
// wait that ended early, a system call that returned EINTR): named as the
// interrupt, with what it ended, exit 4.
int report_failure(bool json, const std::string& command, std::string_view kind, const std::string& message,
                   int code)
{
    if (!net::interrupt_pending())
        return report_error(json, command, kind, message, code);
    const std::string reason = net::interrupt_reason();
    return report_error(json, command, "interrupted",
                        message.rfind(reason, 0) == 0 ? message : fmt::format("{}: {}", reason, message),
                        exit_interrupted);
}

}  // namespace

int run(int argc, char** argv)
{
    CLI::App app;
    GlobalOptions global;
    const std::array<std::string_view, 2> typed = typed_command_words(argc, argv);
    build_app(app, global, typed[0], typed[1]);
    const bool json = argv_has_json(argc, argv);
    const std::vector<std::string> words(argv + 1, argv + argc);
    std::string command;
    try {
        const completion::CommandSpec model = describe_cli(app, Values::flag_or_not);
        command = typed_command(model, words);
        // A mistyped command or option is named with the closest valid one;
        // an old spelling works, with a note that names the current one.
        for (const std::string& note : check_typed_words(model, words))
            std::cerr << note << '\n';
        // Every command: SIGINT/SIGTERM end any wait (net/deadline_io) and
        // the command with exit 4; a second signal kills as usual.
        net::install_interrupt_handlers();
        app.parse(argc, argv);
        if (net::interrupt_pending()) {
            // The command finished its work before it looked: what it
            // printed is whole; the exit code still says it was interrupted.
            if (!global.quiet)
                std::cerr << "qpscope: " << net::interrupt_reason() << " (the output above is complete)\n";
            return exit_interrupted;
        }
        return exit_ok;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const ReportedFailure& e) {
        return net::interrupt_pending() ? exit_interrupted : e.exit_code;
    } catch (const CLI::ParseError& e) {
        return report_error(json, command, "usage", e.what(), exit_usage);
    } catch (const UsageError& e) {
        // The core names what the user gave in its words; the command
        // line's spelling of the command that ran takes their place.
        return report_error(json, command, "usage", spelled(e, app), exit_usage);
    } catch (const TimeoutError& e) {
        return report_failure(json, command, "timeout", spelled(e, app), exit_timeout);
    } catch (const net::Interrupted& e) {
        return report_error(json, command, "interrupted", spelled(e, app), exit_interrupted);
    } catch (const OperationError& e) {
        return report_failure(json, command, "failed", spelled(e, app), exit_failed);
    } catch (const std::exception& e) {
        return report_failure(json, command, "failed", fmt::format("internal error: {}", e.what()), exit_failed);
    }
}

}  // namespace qps::commands
