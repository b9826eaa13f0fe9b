#include <doctest/doctest.h>

#include "src/completion/completion.hpp"

using namespace qps::completion;

namespace {
// A small command line: `tool [--json] [--color WHEN] {run [-d DEV] [--mode M] [--flags L] QPN | empty}`.
CommandSpec demo()
{
    const OptionSpec json{{"--json"}, "", "Print JSON", ValueKind::flag, {}};
    const OptionSpec color{
        {"--color"}, "", "Colour: auto, always, never", ValueKind::choice, {"auto", "always", "never"}};
    CommandSpec run{"run", "Run it's [fast]: now", {}, {}, {}, {}};
    run.options = {{{"-d", "--device"}, "", "Device [e.g. rxe0]", ValueKind::device, {}},
                   {{"-p", "--port"}, "", "Port", ValueKind::port, {}},
                   {{"--mode"}, "", "Mode", ValueKind::choice, {"fast", "slow"}},
                   {{"--flags"}, "", "Flags, comma list", ValueKind::comma_list, {"a_b", "c_d"}},
                   json,
                   color};
    run.positionals = {{{}, "qpn", "QP number", ValueKind::qpn, {}}};
    CommandSpec empty{"empty-one", "Nothing", {json, color}, {}, {}, {}};
    return {"qpscope", "", {json, color}, {}, {run, empty}, {}};
}

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("model lookups")
{
    const CommandSpec root = demo();
    REQUIRE(find_command(root, {"run"}) != nullptr);
    CHECK(find_command(root, {})->name == "qpscope");
    CHECK(find_command(root, {"nope"}) == nullptr);
    const OptionSpec* d = find_option(*find_command(root, {"run"}), "-d");
    REQUIRE(d != nullptr);
    CHECK(d->kind == ValueKind::device);
    CHECK(find_option(root, "--device") == nullptr);
    CHECK(parse_shell("zsh") == Shell::zsh);
    CHECK_FALSE(parse_shell("tcsh"));
}

TEST_CASE("bash script: tables per command, grouped by value kind")
{
    const std::string s = bash_script(demo());
    CHECK(has(s, "        '') echo 'run empty-one' ;;\n"));
    CHECK(has(s, "        'run') echo '-d --device -p --port --mode --flags --json --color' ;;\n"));
    CHECK(has(s, "'--mode') echo 'choice fast slow' ;;"));
    CHECK(has(s, "'--flags') echo 'list a_b c_d' ;;"));
    CHECK(has(s, "'-d'|'--device') echo 'device' ;;"));
    CHECK(has(s, "'--json') echo 'flag' ;;"));
    CHECK(has(s, "'run|0') echo 'qpn' ;;"));
    CHECK(has(s, "complete -F _qpscope qpscope"));
}

TEST_CASE("zsh script: one function per command, descriptions escaped")
{
    const std::string s = zsh_script(demo());
    CHECK(s.starts_with("#compdef qpscope\n"));
    CHECK(has(s, "_qpscope__run()\n"));
    CHECK(has(s, "_qpscope__empty_one()\n"));
    CHECK(has(s, "'(-d --device)-d+[Device \\[e.g. rxe0\\]]:device:_qpscope_devices'"));
    CHECK(has(s, "'(-p --port)--port=[Port]:port:_qpscope_ports -d --device'"));
    CHECK(has(s, "'--mode=[Mode]:mode:(fast slow)'"));
    CHECK(has(s, "'--flags=[Flags, comma list]:flags:_values -s , flags a_b c_d'"));
    CHECK(has(s, "'1:qpn:_qpscope_qpns'"));
    CHECK(has(s, "'run:Run it'\\''s [fast]: now'"));  // ' closed, escaped, reopened
    CHECK(has(s, "'empty-one') _qpscope__empty_one && ret=0 ;;"));
}

TEST_CASE("fish script: conditions on the command path, quotes escaped")
{
    const std::string s = fish_script(demo());
    CHECK(has(s, "complete -c qpscope -n '__qpscope_at \"\"' -a 'run' -d 'Run it\\'s [fast]: now'\n"));
    CHECK(has(s, "complete -c qpscope -n '__qpscope_at \"run\"' -s 'd' -l 'device' -x -a '(__qpscope_devices)'"));
    CHECK(has(s, "-l 'mode' -x -a 'fast slow' -d 'Mode'"));
    CHECK(has(s, "-l 'flags' -x -a '(__qpscope_list a_b c_d)'"));
    CHECK(has(s, "-l 'port' -x -a '(__qpscope_ports -d --device)'"));
    CHECK(has(s, "complete -c qpscope -n '__qpscope_at \"run\" 0' -f -a '(__qpscope_qpns)' -d 'QP number'"));
    CHECK(has(s, "        case 'run'\n            printf '%s\\n' '-d' '--device' '-p' '--port' '--mode' '--flags' "
                 "'--color'\n"));
}
