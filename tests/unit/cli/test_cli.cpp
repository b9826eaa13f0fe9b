#include <doctest/doctest.h>
#include <vector>

#include "commands/app.hpp"

using namespace qps::commands;

namespace {
// Parses argv without running callbacks' side effects beyond parsing errors.
void parse(std::vector<std::string> args)
{
    CLI::App app;
    GlobalOptions global;
    build_app(app, global);
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);
}
}  // namespace

TEST_CASE("bad usage is rejected by the parser with the bad value named")
{
    CHECK_THROWS_AS(parse({}), CLI::RequiredError);
    CHECK_THROWS_AS(parse({"nosuchcommand"}), CLI::ParseError);
    CHECK_THROWS_AS(parse({"ports", "--bogus"}), CLI::ParseError);
    try {
        parse({"ports", "--port", "0"});
        FAIL("port 0 accepted");
    } catch (const CLI::ParseError& e) {
        CHECK(std::string(e.what()).find("0") != std::string::npos);
    }
    CHECK_THROWS_AS(parse({"--color", "sometimes", "ports"}), CLI::ValidationError);
}

TEST_CASE("a start builds only the command typed, found past the global options")
{
    std::vector<std::string> storage;
    auto word = [&](std::vector<std::string> args) {
        storage = std::move(args);
        storage.insert(storage.begin(), "qpscope");
        std::vector<char*> argv;
        for (std::string& s : storage)
            argv.push_back(s.data());
        return std::string(typed_command_word(static_cast<int>(argv.size()), argv.data()));
    };
    CHECK(word({"ports", "-d", "rxe0"}) == "ports");
    CHECK(word({"--json", "-q", "--color", "never", "qp", "list"}) == "qp");
    CHECK(word({"--color=never", "bw", "host"}) == "bw");
    CHECK(word({"--color", "ports"}).empty());  // "ports" is --color's value
    CHECK(word({"--help", "ports"}).empty());   // the top-level help lists every command
    CHECK(word({"--", "ports"}).empty());
    CHECK(word({}).empty());
    // The word after the command's, past the global options between them.
    auto words = [&](std::vector<std::string> args) {
        storage = std::move(args);
        storage.insert(storage.begin(), "qpscope");
        std::vector<char*> argv;
        for (std::string& s : storage)
            argv.push_back(s.data());
        const auto w = typed_command_words(static_cast<int>(argv.size()), argv.data());
        return std::vector<std::string>{std::string(w[0]), std::string(w[1])};
    };
    CHECK(words({"qp", "list"}) == std::vector<std::string>{"qp", "list"});
    CHECK(words({"--json", "qp", "--color", "never", "-q", "list", "--held"}) == std::vector<std::string>{"qp", "list"});
    CHECK(words({"qp", "--help", "list"}) == std::vector<std::string>{"qp", ""});  // qp's help lists all
    CHECK(words({"qp"}) == std::vector<std::string>{"qp", ""});
    CHECK(words({"qp", "--", "list"}) == std::vector<std::string>{"qp", ""});
    // Every global option that takes a value is stepped over with it, as
    // the parser reads it: a new one is covered without a change here.
    const std::vector<std::string> with_value = global_options_with_value();
    CHECK(std::ranges::find(with_value, "--color") != with_value.end());
    CHECK(std::ranges::find(with_value, "--json") == with_value.end());
    for (const std::string& option : with_value) {
        CAPTURE(option);
        CHECK(word({option, "ports", "qp", "list"}) == "qp");
    }

    // Each word of the table builds the command it names, and only that one.
    for (std::string_view w : command_words()) {
        CAPTURE(w);
        CLI::App app;
        GlobalOptions global;
        build_app(app, global, w);
        CHECK_NOTHROW(app.get_subcommand(std::string(w)));
        CHECK(app.get_subcommands({}).size() <= 2);  // qp and its hidden __holder
    }
    // qp with the word of one of its commands builds only that one (and the
    // hidden __holder beside qp); with none, or a word that names none, all.
    const auto qp_commands = [&](std::string_view sub) {
        CLI::App app;
        GlobalOptions global;
        build_app(app, global, "qp", sub);
        std::vector<std::string> out;
        for (const CLI::App* s : app.get_subcommand("qp")->get_subcommands({}))
            out.push_back(s->get_name());
        CHECK_NOTHROW(app.get_subcommand("__holder"));
        return out;
    };
    CHECK(qp_commands("list") == std::vector<std::string>{"list"});
    CHECK(qp_commands("create") == std::vector<std::string>{"create"});
    const std::vector<std::string> every{"create", "modify", "query", "list", "post", "destroy", "srq", "xrcd"};
    CHECK(qp_commands("") == every);
    CHECK(qp_commands("lst") == every);
    // A word that names no command builds them all, so the parser can name
    // the closest (and __complete-script describes the whole tree).
    CLI::App all;
    GlobalOptions global;
    build_app(all, global, "prots");
    CHECK(all.get_subcommands({}).size() == command_words().size() + 1);
    CHECK_NOTHROW(all.get_subcommand("__complete-script"));
}
