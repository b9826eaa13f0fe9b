// The small text helpers every floor uses.
#include <doctest/doctest.h>

#include "src/util/text.hpp"

using namespace qps::util;

TEST_CASE("split keeps empty pieces; an empty text has none")
{
    CHECK(split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
    CHECK(split("a", ',') == std::vector<std::string>{"a"});
    CHECK(split(",", ',') == std::vector<std::string>{"", ""});
    CHECK(split("", ',').empty());
}

TEST_CASE("trim, lower and join")
{
    CHECK(trim(" \t mtu>=4096 \n") == "mtu>=4096");
    CHECK(lower("RoCE v2") == "roce v2");
    CHECK(join({"a", "b"}, ", ") == "a, b");
}
