// commands/spellings.cpp and src/error.hpp's marks: the core names what the
// user gave in its own words; the command that ran spells it.
#include <cerrno>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <functional>
#include <string>

#include "commands/app.hpp"
#include "commands/spellings.hpp"
#include "src/error.hpp"
#include "unit/util.hpp"

using namespace qps;
using namespace qps::commands;

namespace {

// Every Given, walked from the enum.
std::vector<Given> every_given_of()
{
    std::vector<Given> all;
    for (std::size_t i = 0; i < given_count; ++i)
        all.push_back(static_cast<Given>(i));
    return all;
}
const std::vector<Given> every_given = every_given_of();

// Whether some command of qpscope (at any depth) has this option.
bool some_command_has(const CLI::App& app, const std::string& option)
{
    if (app.get_option_no_throw(option) != nullptr)
        return true;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (some_command_has(*sub, option))
            return true;
    return false;
}

}  // namespace

TEST_CASE("marks: what() says the thing in words; naming() as the caller names it; plain text is kept")
{
    const UsageError e(fmt::format("{} {} exceeds rxe0's max_qp_wr of 16384", given(Given::send_wr), 20000));
    CHECK(std::string(e.what()) == "the send queue depth 20000 exceeds rxe0's max_qp_wr of 16384");
    CHECK(e.naming([](Given) { return std::string("--send-wr"); }) == "--send-wr 20000 exceeds rxe0's max_qp_wr of 16384");
    const UsageError plain("unknown device 'rxe9'");
    CHECK(std::string(plain.what()) == "unknown device 'rxe9'");
    CHECK(plain.marked() == "unknown device 'rxe9'");
    // A stray control character, or a mark no Given has, stays as it is.
    const UsageError odd("a \x1e" "b \x1enope\x1f c \x1f");
    CHECK(std::string(odd.what()) == "a \x1e" "b \x1enope\x1f c \x1f");
    for (const Given g : every_given) {
        CAPTURE(given_name(g));
        CHECK(given_from_name(given_name(g)) == g);
        CHECK(std::string(given_words(g)).starts_with("the "));
    }
    CHECK_FALSE(given_from_name("port"));
}

TEST_CASE("spellings: one option per thing (and another where a command keeps one), and qpscope has each")
{
    CLI::App app;
    GlobalOptions global;
    build_app(app, global);
    for (const Given g : every_given) {
        CAPTURE(given_name(g));
        const std::string option(option_for(g));
        REQUIRE_FALSE(option.empty());
        CHECK(some_command_has(app, option));
        if (const std::string perftest(other_option_for(g)); !perftest.empty())
            CHECK(some_command_has(app, perftest));
    }
}

TEST_CASE("spelled: the command that ran names each thing by its option; a command without it, in words")
{
    CLI::App app;
    CLI::App* bw = app.add_subcommand("bw");
    int threads = 0, cpu = 0;
    bw->add_option("--threads", threads);
    bw->add_option("-c,--cpu", cpu);
    app.add_subcommand("qp")->add_subcommand("create")->add_option("--send-wr", threads);
    const UsageError e(fmt::format("{} 1 pins the one thread of a run; with {} 3 give {}, one CPU per thread",
                                   given(Given::cpu), given(Given::threads), given(Given::cpus)));
    app.parse(std::vector<std::string>{"2", "--threads", "bw"});  // reversed: CLI11 takes the last first
    CHECK(spelled(e, app) == "-c 1 pins the one thread of a run; with --threads 3 give the CPU list, one CPU per thread");

    CLI::App app2;
    app2.add_subcommand("qp")->add_subcommand("create")->add_option("--send-wr", threads);
    app2.parse(std::vector<std::string>{"create", "qp"});
    const UsageError wr(fmt::format("{} 9 exceeds rxe0's max_qp_wr of 8", given(Given::send_wr)));
    CHECK(spelled(wr, app2) == "--send-wr 9 exceeds rxe0's max_qp_wr of 8");
    CHECK(spelled(e, app2) ==
          "the CPU 1 pins the one thread of a run; with the thread count 3 give the CPU list, one CPU per thread");

    CLI::App app3;  // bw keeps perftest's name for the send queue depth
    app3.add_subcommand("bw")->add_option("--tx-depth", threads);
    app3.parse(std::vector<std::string>{"bw"});
    CHECK(spelled(wr, app3) == "--tx-depth 9 exceeds rxe0's max_qp_wr of 8");
}

TEST_CASE("marks in failures: an OperationError, a TimeoutError and a SystemError are spelled like a usage error")
{
    CLI::App app;
    CLI::App* pp = app.add_subcommand("ping-pong");
    std::string device;
    bool cm = false;
    pp->add_option("-d,--device", device);
    pp->add_flag("--cm", cm);
    app.parse(std::vector<std::string>{"ping-pong"});

    const OperationError failed(fmt::format("this server was given {} rxe0: leave {} out", given(Given::device),
                                            given(Given::device)));
    CHECK(std::string(failed.what()) == "this server was given the device rxe0: leave the device out");
    CHECK(spelled(failed, app) == "this server was given -d rxe0: leave -d out");

    const TimeoutError late(fmt::format("no answer through {}", given(Given::cm)));
    CHECK(std::string(late.what()) == "no answer through the rdma_cm connection");
    CHECK(spelled(late, app) == "no answer through --cm");

    // The call and the hint of a SystemError are kept in words (a report
    // shows them as fields); its message is marked as a whole.
    const SystemError sys(fmt::format("rdma_bind_addr(0.0.0.0:{})", 7471), EADDRINUSE,
                          fmt::format("give another {}", given(Given::cm_port)));
    CHECK(sys.hint == "give another the rdma_cm port");
    CHECK(sys.call == "rdma_bind_addr(0.0.0.0:7471)");
    CHECK(qps::test::contains(spelled(sys, app), "EADDRINUSE"));
    CHECK(qps::test::contains(spelled(sys, app), "give another the rdma_cm port"));  // ping-pong has no --cm-port here
    pp->add_option("--cm-port", device);
    CHECK(qps::test::contains(spelled(sys, app), "give another --cm-port"));
}
