#include <doctest/doctest.h>

#include "src/error.hpp"
#include "src/perf/sizes.hpp"

using namespace qps::perf;

TEST_CASE("sizes: single, list, doubling sweep, suffixes")
{
    CHECK(parse_sizes("64") == std::vector<std::uint32_t>{64});
    CHECK(parse_sizes("64,4096") == std::vector<std::uint32_t>{64, 4096});
    CHECK(parse_sizes("2:16") == std::vector<std::uint32_t>{2, 4, 8, 16});
    CHECK(parse_sizes("3:20") == std::vector<std::uint32_t>{3, 6, 12});
    CHECK(parse_sizes("1K") == std::vector<std::uint32_t>{1024});
    CHECK(parse_sizes("2:8M").size() == 23);
    CHECK(parse_sizes("2:8M").back() == 8u << 20);
    CHECK(parse_sizes("1,2:4") == std::vector<std::uint32_t>{1, 2, 4});
}

TEST_CASE("sizes: bad input names the part")
{
    auto message = [](const char* text) {
        try {
            parse_sizes(text, 1u << 20);
        } catch (const qps::UsageError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(message("0").find("'0'") != std::string::npos);
    CHECK(message("abc").find("'abc'") != std::string::npos);
    CHECK(message("8:2").find("smaller size") != std::string::npos);
    CHECK(message("2M").find("1..1048576") != std::string::npos);
    CHECK(message("64,").find("trailing comma") != std::string::npos);
    CHECK(message("").find("no size") != std::string::npos);
    CHECK(message("4X").find("'4X'") != std::string::npos);
    // The core names the thing; the command line spells it (-s, --size) for the command that ran.
    CHECK(message("0").rfind("the size '0':", 0) == 0);
    CHECK(message("64,").rfind("the size: a trailing comma", 0) == 0);
}
