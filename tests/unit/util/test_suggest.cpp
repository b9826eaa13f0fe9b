#include <doctest/doctest.h>

#include "src/util/suggest.hpp"

using namespace qps::util;

TEST_CASE("edit distance counts a swap of neighbours as one edit")
{
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("abc", "") == 3);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("prots", "ports") == 1);
    CHECK(edit_distance("devcie", "device") == 1);
    CHECK(edit_distance("rxe9", "rxe0") == 1);
    CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment: no edit of a swapped pair
    CHECK(edit_distance("ping-pong", "ping-pong") == 0);
}

TEST_CASE("closest: a likely typo of one candidate, else nothing")
{
    const std::vector<std::string> commands{"ports", "qp", "ping-pong"};
    CHECK(closest("prots", commands) == "ports");
    CHECK(closest("port", commands) == "ports");
    CHECK(closest("pingpong", commands) == "ping-pong");
    CHECK(closest("pq", commands) == "qp");
    CHECK(closest("ports", commands) == "ports");
    CHECK_FALSE(closest("frobnicate", commands));
    CHECK_FALSE(closest("", commands));
    CHECK_FALSE(closest("x", {"d"}));  // one letter replaced entirely is no typo
    CHECK_FALSE(closest("abcdef", {"abxyzf"}));  // 3 edits in 6 letters: too far
    CHECK(closest("rxe9", {"mlx5_0", "rxe0"}) == "rxe0");
    CHECK(closest("mlx5_2", {"mlx5_0", "mlx5_1"}) == "mlx5_0");  // a tie goes to the first
    CHECK_FALSE(closest("rxe0", {}));
}

TEST_CASE("one-line messages with and without a suggestion")
{
    CHECK(did_you_mean("prots", {"ports", "qp"}) == " did you mean 'ports'?");
    CHECK(did_you_mean("devcie", {"device"}, "--") == " did you mean --device--?");
    CHECK(did_you_mean("zzz", {"ports"}).empty());
    CHECK(unknown_name_message("device", "rxe9", {"rxe0"}, "devices on this host are") ==
          "unknown device 'rxe9': did you mean 'rxe0'? devices on this host are rxe0");
    CHECK(unknown_name_message("device", "nosuch0", {"rxe0", "mlx5_0"}, "devices on this host are") ==
          "unknown device 'nosuch0': devices on this host are rxe0, mlx5_0");
    CHECK(unknown_name_message("device", "rxe0", {}, "devices on this host are") ==
          "unknown device 'rxe0': devices on this host are none");
}
