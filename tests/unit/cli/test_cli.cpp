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
