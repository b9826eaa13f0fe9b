#include <doctest/doctest.h>
#include <algorithm>
#include <functional>
#include <iostream>
#include <sstream>
#include <tuple>

#include "commands/app.hpp"
#include "commands/describe.hpp"
#include "commands/option_values.hpp"
#include "formatters/printer.hpp"
#include "src/error.hpp"
#include "src/qp/options.hpp"

using namespace qps;
using namespace qps::commands;
using completion::ValueKind;

namespace {
completion::CommandSpec describe_qpscope()
{
    CLI::App app;
    GlobalOptions global;
    build_app(app, global);
    return describe_cli(app);
}

std::vector<std::string> names(const std::vector<completion::CommandSpec>& cmds)
{
    std::vector<std::string> out;
    for (const auto& c : cmds)
        out.push_back(c.name);
    return out;
}

const completion::OptionSpec& option(const completion::CommandSpec& root, std::vector<std::string> path, std::string_view name)
{
    const completion::CommandSpec* cmd = completion::find_command(root, path);
    REQUIRE(cmd != nullptr);
    const completion::OptionSpec* o = completion::find_option(*cmd, name);
    REQUIRE_MESSAGE(o != nullptr, name);
    return *o;
}

std::string usage_error(std::vector<std::string> args)
{
    try {
        check_typed_words(describe_qpscope(), args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

void visit(const completion::CommandSpec& c, const std::function<void(const completion::CommandSpec&)>& fn)
{
    fn(c);
    for (const auto& s : c.subcommands)
        visit(s, fn);
}
}  // namespace

TEST_CASE("the model of the command line: visible commands only")
{
    const auto root = describe_qpscope();
    CHECK(root.name == "qpscope");
    CHECK(names(root.subcommands) == std::vector<std::string>{"ports", "qp", "cm", "ping-pong", "bw", "doctor", "path", "explain", "mesh", "watch"});
    const auto* qp = completion::find_command(root, {"qp"});
    REQUIRE(qp != nullptr);
    CHECK(names(qp->subcommands) ==
          std::vector<std::string>{"create", "modify", "query", "list", "post", "destroy", "srq", "xrcd"});
}

TEST_CASE("the model: options, inherited globals, value kinds and words")
{
    const auto root = describe_qpscope();
    CHECK(option(root, {}, "--json").kind == ValueKind::flag);
    CHECK(option(root, {}, "-q").names == std::vector<std::string>{"-q", "--quiet"});
    CHECK(option(root, {}, "--color").words == std::vector<std::string>{"auto", "always", "never"});
    // Globals are valid after any subcommand (CLI11 fallthrough).
    CHECK(option(root, {"qp", "create"}, "--json").kind == ValueKind::flag);
    CHECK(option(root, {"qp", "create"}, "--color").kind == ValueKind::choice);

    CHECK(option(root, {"ports"}, "-d").kind == ValueKind::device);
    CHECK(option(root, {"ports"}, "--ib-port").kind == ValueKind::port);
    CHECK(option(root, {"doctor"}, "-i").kind == ValueKind::port);
    CHECK(option(root, {"qp", "modify"}, "--ib-port").kind == ValueKind::port);
    CHECK(option(root, {"ping-pong"}, "--op").words ==
          std::vector<std::string>{"send", "write", "read", "fadd", "cas"});
    CHECK(option(root, {"ping-pong"}, "--transport").words == std::vector<std::string>{"rc", "uc", "ud", "xrc"});
    CHECK(option(root, {"ping-pong"}, "--inline").words == std::vector<std::string>{"auto", "on", "off"});
    CHECK(option(root, {"ping-pong"}, "-m").words == qp::mtu_words());
    CHECK(option(root, {"ping-pong"}, "-p").kind == ValueKind::text);  // the TCP port: a number
    CHECK(option(root, {"ping-pong"}, "-i").kind == ValueKind::port);
    CHECK(option(root, {"ping-pong"}, "--histogram").kind == ValueKind::flag);
    CHECK(option(root, {"qp", "modify"}, "--state").words == qp::state_words());
    CHECK(option(root, {"qp", "modify"}, "--path-mig-state").words ==
          std::vector<std::string>{"migrated", "rearm", "armed"});
    const auto& access = option(root, {"qp", "modify"}, "--access");
    CHECK(access.kind == ValueKind::comma_list);
    CHECK(access.words == qp::access_words());
    CHECK(access.words.front() == "local_write");
    CHECK(option(root, {"qp", "create"}, "--to").words == std::vector<std::string>{"init", "rtr", "rts"});
    CHECK(option(root, {"qp", "create"}, "--transport").words == std::vector<std::string>{"rc", "uc", "ud", "xrc-send", "xrc-recv"});
    CHECK(option(root, {"qp", "list"}, "--transport").words == std::vector<std::string>{"rc", "uc", "ud", "xrc-send", "xrc-recv"});
    CHECK(option(root, {"qp", "list"}, "--state").kind == ValueKind::choice);

    const auto* modify = completion::find_command(root, {"qp", "modify"});
    REQUIRE(modify->positionals.size() == 1);
    CHECK(modify->positionals[0].name == "qpn");
    CHECK(modify->positionals[0].kind == ValueKind::qpn);
    CHECK(completion::find_command(root, {"ping-pong"})->positionals.at(0).kind == ValueKind::host);
}

TEST_CASE("every device option and every QPN positional of every command says so")
{
    // A command added later (e.g. bw) gets device completion only with
    // ->type_name(value_type::device): this catches one that forgets.
    const auto root = describe_qpscope();
    int devices = 0;
    visit(root, [&](const completion::CommandSpec& c) {
        for (const auto& o : c.options)
            if (std::find(o.names.begin(), o.names.end(), "--device") != o.names.end()) {
                CHECK_MESSAGE(o.kind == ValueKind::device, c.name);
                ++devices;
            }
        for (const auto& p : c.positionals)
            if (p.name == "qpn")
                CHECK_MESSAGE(p.kind == ValueKind::qpn, c.name);
    });
    CHECK(devices >= 4);
}

TEST_CASE("the model run() checks typed words with (Values::flag_or_not) is the whole model but the value kinds")
{
    CLI::App app;
    GlobalOptions global;
    build_app(app, global);
    const completion::CommandSpec all = describe_cli(app);
    const completion::CommandSpec lean = describe_cli(app, Values::flag_or_not);
    // Same commands, options (names, flag or not), positionals and old spellings.
    std::function<void(const completion::CommandSpec&, const completion::CommandSpec&)> same =
        [&](const completion::CommandSpec& a, const completion::CommandSpec& b) {
            CAPTURE(a.name);
            REQUIRE(a.name == b.name);
            const auto shape = [](const std::vector<completion::OptionSpec>& os) {
                std::vector<std::tuple<std::vector<std::string>, std::string, bool>> out;
                for (const auto& o : os)
                    out.emplace_back(o.names, o.name, o.kind == ValueKind::flag);
                return out;
            };
            CHECK(shape(a.options) == shape(b.options));
            CHECK(shape(a.positionals) == shape(b.positionals));
            CHECK(shape(a.old_spellings) == shape(b.old_spellings));
            REQUIRE(names(a.subcommands) == names(b.subcommands));
            for (std::size_t i = 0; i < a.subcommands.size(); ++i)
                same(a.subcommands[i], b.subcommands[i]);
        };
    same(all, lean);
    // and the value kinds are left out: no words are read.
    CHECK(option(lean, {"ports"}, "--format").kind == ValueKind::text);
    CHECK(option(lean, {"ports"}, "--format").words.empty());
    CHECK(option(all, {"ports"}, "--format").kind == ValueKind::choice);
}

TEST_CASE("a plain CLI::IsMember check is read back as a choice; hidden things are left out")
{
    CLI::App app;
    std::string v, hidden;
    bool flag = false;
    auto* sub = app.add_subcommand("sub", "A subcommand");
    sub->add_option("--pick", v, "Pick one")->check(CLI::IsMember({"x", "y"}));
    sub->add_option("--secret", hidden)->group("");
    sub->add_flag("--flag", flag, "A flag");
    app.add_subcommand("__hidden", "")->group("");
    const auto root = describe_cli(app);
    REQUIRE(root.subcommands.size() == 1);
    const auto& s = root.subcommands[0];
    CHECK(completion::find_option(s, "--pick")->kind == ValueKind::choice);
    CHECK(completion::find_option(s, "--pick")->words == std::vector<std::string>{"x", "y"});
    CHECK(completion::find_option(s, "--flag")->kind == ValueKind::flag);
    CHECK(completion::find_option(s, "--secret") == nullptr);
}

TEST_CASE("one_of: any case becomes the listed word; a bad value is named with the closest")
{
    CLI::App app;
    std::string v;
    app.add_option("--state", v)->transform(one_of(qp::state_words()));
    app.parse(std::vector<std::string>{"RTR", "--state"});
    CHECK(v == "rtr");
    try {
        app.parse(std::vector<std::string>{"rtx", "--state"});
        FAIL("rtx accepted");
    } catch (const CLI::ValidationError& e) {
        CHECK(std::string(e.what()) ==
              "--state: 'rtx' is not one of reset, init, rtr, rts, sqd, sqe, err; did you mean 'rtr'?");
    }
    try {
        app.parse(std::vector<std::string>{"sometimes", "--state"});
        FAIL("sometimes accepted");
    } catch (const CLI::ValidationError& e) {
        CHECK(std::string(e.what()) == "--state: 'sometimes' is not one of reset, init, rtr, rts, sqd, sqe, err");
    }
}

TEST_CASE("mistyped commands and options are named with the closest valid one")
{
    CHECK(usage_error({"prots"}) == "unknown command 'prots': did you mean 'ports'? commands are ports, qp, cm, ping-pong, bw, doctor, path, explain, mesh, watch");
    CHECK(usage_error({"frobnicate"}) == "unknown command 'frobnicate': commands are ports, qp, cm, ping-pong, bw, doctor, path, explain, mesh, watch");
    CHECK(usage_error({"--json", "qp", "crate"}) ==
          "unknown command 'crate': did you mean 'create'? qp commands are create, modify, query, list, post, destroy, srq, xrcd");
    CHECK(usage_error({"ports", "--devcie", "x"}) == "unknown option --devcie: did you mean --device?");
    CHECK(usage_error({"qp", "modify", "0x11", "--sate", "rtr"}) == "unknown option --sate: did you mean --state?");
    CHECK(usage_error({"--jsno", "ports"}) == "unknown option --jsno: did you mean --json?");
    const std::string bogus = usage_error({"ports", "--bogus"});
    CHECK(bogus.starts_with("unknown option --bogus: the options of 'qpscope ports' are "));
    CHECK(bogus.find("--device") != std::string::npos);
    CHECK(usage_error({"ports", "-z"}).starts_with("unknown option -z: the options of 'qpscope ports' are"));
}

TEST_CASE("well-formed command lines pass the check")
{
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"ports"},
             {"--color", "never", "-q", "ports", "-p", "1", "--json"},
             {"--color=always", "ports", "--device=rxe0"},
             {"ping-pong", "-drxe0", "host1", "-s", "2:4K", "--op", "write"},
             {"qp", "modify", "0x11", "--state", "rtr", "--dest-qpn", "0x12", "--json"},
             {"qp", "create", "--pair", "-d", "qp"},  // a device named like a command is a value
             {"qp", "destroy", "--all"},
             {"ping-pong", "-c", "-1"},
             {"__holder", "--dir", "/tmp/x"},
             {"--help"},
             {"ports", "--", "--anything"},
         })
        CHECK_MESSAGE(usage_error(args) == "(accepted)", args.front());
}

TEST_CASE("colour: always, never, or on a terminal unless NO_COLOR is set")
{
    CHECK(color_enabled("always", false, nullptr));
    CHECK(color_enabled("always", false, "1"));
    CHECK_FALSE(color_enabled("never", true, nullptr));
    CHECK(color_enabled("auto", true, nullptr));
    CHECK_FALSE(color_enabled("auto", false, nullptr));
    CHECK_FALSE(color_enabled("auto", true, "1"));
    CHECK(color_enabled("auto", true, ""));  // no-color.org: only a non-empty value counts

    // The text printer puts headings in bold only when asked to.
    for (const bool color : {true, false}) {
        std::ostringstream out;
        auto p = formatters::make_printer({.json = false, .color = color}, out);
        p->begin_document("demo");
        {
            formatters::ObjectScope dev(*p, "dev", "dev0");
            p->field("state", "state", std::string("ACTIVE"));
        }
        p->end_document();
        CHECK((out.str().find("\033[1mdev0\033[0m") != std::string::npos) == color);
        CHECK((out.str().find('\033') != std::string::npos) == color);
    }
}

TEST_CASE("GlobalOptions::info is dropped under --quiet")
{
    GlobalOptions g;
    std::ostringstream captured;
    auto* old = std::cerr.rdbuf(captured.rdbuf());
    g.info("progress 1");
    g.quiet = true;
    g.info("progress 2");
    std::cerr.rdbuf(old);
    CHECK(captured.str() == "progress 1\n");
}

TEST_CASE("one spelling for one thing: the old spellings are hidden from --help and the completions")
{
    const auto root = describe_qpscope();
    const std::vector<std::tuple<std::vector<std::string>, std::string, std::string>> renamed{
        {{"ports"}, "--port", "--ib-port"},          {{"ports"}, "-p", "-i"},
        {{"doctor"}, "--port", "--ib-port"},         {{"qp", "create"}, "--type", "--transport"},
        {{"qp", "create"}, "-t", "--transport"},     {{"qp", "list"}, "--type", "--transport"},
        {{"qp", "modify"}, "--port", "--ib-port"},   {{"qp", "modify"}, "--timeout", "--qp-timeout"},
        {{"qp", "modify"}, "--sgid-index", "-x"},    {{"qp", "modify"}, "--traffic-class", "--tclass"},
        {{"qp", "create"}, "--sgid-index", "--gid-index"},
    };
    for (const auto& [path, old_name, now] : renamed) {
        CAPTURE(old_name);
        const completion::CommandSpec* cmd = completion::find_command(root, path);
        REQUIRE(cmd != nullptr);
        CHECK(completion::find_option(*cmd, old_name) == nullptr);
        CHECK(completion::find_option(*cmd, now) != nullptr);
        // ... yet typed, it is no unknown option ("did you mean").
        std::vector<std::string> typed = path;
        typed.push_back(old_name);
        typed.push_back("1");
        CHECK(usage_error(typed) == "(accepted)");
    }
    CHECK(usage_error({"ports", "-p1"}) == "(accepted)");
    // The same thing, the same spelling, in every command that has it.
    for (const auto& path : std::vector<std::vector<std::string>>{{"ports"}, {"doctor"}, {"ping-pong"}, {"bw"}, {"path"},
                                                                   {"mesh"}, {"qp", "create"}, {"qp", "modify"}})
        CHECK(option(root, path, "-i").kind == ValueKind::port);
    for (const auto& path : std::vector<std::vector<std::string>>{{"ping-pong"}, {"bw"}, {"qp", "create"}, {"qp", "modify"}})
        CHECK(completion::find_option(*completion::find_command(root, path), "--qp-timeout") != nullptr);
}

TEST_CASE("an old spelling still parses, into the same value, with one note naming the current one")
{
    const auto root = describe_qpscope();
    CHECK(check_typed_words(root, {"ports", "-p", "1"}) ==
          std::vector<std::string>{"qpscope ports: note: -p/--port is now -i/--ib-port (one spelling for one thing "
                                   "across commands); the old one still works"});
    CHECK(check_typed_words(root, {"--json", "qp", "modify", "0x12", "--timeout", "14", "--traffic-class=8"}) ==
          std::vector<std::string>{
              "qpscope qp modify: note: --timeout is now --qp-timeout (one spelling for one thing across commands); "
              "the old one still works",
              "qpscope qp modify: note: --traffic-class is now --tclass (one spelling for one thing across commands); "
              "the old one still works"});
    CHECK(check_typed_words(root, {"ports", "-i", "1"}).empty());
    CHECK(check_typed_words(root, {"ping-pong", "-p", "18000"}).empty());  // ping-pong's -p is the TCP port

    CLI::App app;
    GlobalOptions global;
    build_app(app, global);
    CLI::App* ports = app.get_subcommand("ports");
    // Parsed only: --help, and the excludes check, end the parse before the
    // command runs (its callback, which owns the options' storage, stays).
    CHECK_THROWS_AS(app.parse(std::vector<std::string>{"--help", "1", "-p", "ports"}), CLI::CallForHelp);  // reversed
    CHECK(ports->get_option("--port")->count() == 1);  // the value itself: lab 10-ports (port 2 refused as with -i)
    CLI::App app2;
    build_app(app2, global);
    CHECK_THROWS_AS(app2.parse(std::vector<std::string>{"1", "-i", "1", "-p", "ports"}), CLI::ExcludesError);
    // --help lists the current spelling only.
    std::ostringstream help;
    help << ports->help();
    CHECK(help.str().find("--ib-port") != std::string::npos);
    CHECK(help.str().find("--port") == std::string::npos);
    CHECK(help.str().find("Old spellings") == std::string::npos);
}
