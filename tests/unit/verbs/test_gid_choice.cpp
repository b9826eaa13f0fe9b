// Ranking of a port's GIDs: RoCE v2 + IPv4, RoCE v2, RoCE v1 + IPv4,
// RoCE v1, IB; lowest index within a rank.
#include <array>
#include <cstdint>
#include <doctest/doctest.h>
#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "src/verbs/gid_choice.hpp"
#include "unit/util.hpp"

using namespace qps::verbs;

using qps::test::contains;
namespace {

using Gid = std::array<std::uint8_t, 16>;

Gid v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d)
{
    return Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}
const Gid link_local{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};
const Gid link_local2{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x57};

constexpr int IB = IBV_GID_TYPE_IB;
constexpr int V1 = IBV_GID_TYPE_ROCE_V1;
constexpr int V2 = IBV_GID_TYPE_ROCE_V2;

}  // namespace

TEST_CASE("choose_among: the gid type values as libibverbs defines them")
{
    CHECK(IB == 0);
    CHECK(V1 == 1);
    CHECK(V2 == 2);
}

TEST_CASE("choose_among: RoCE v2 with IPv4 beats RoCE v2 link-local beats RoCE v1 with IPv4 beats IB")
{
    // A typical RoCE port table: v1 and v2 for the link-local GID and for
    // the IPv4 address, with the best last so order does not decide.
    std::vector<GidCandidate> table{
        {0, link_local, V1},
        {1, link_local, V2},
        {2, v4(192, 0, 2, 1), V1},
        {3, v4(192, 0, 2, 1), V2},
    };
    GidChoice c = choose_among(table, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 3);
    CHECK(c.gid == v4(192, 0, 2, 1));

    table.pop_back();  // without the v2 IPv4 GID: v2 link-local
    c = choose_among(table, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 1);
    CHECK(c.gid == link_local);

    table.erase(table.begin() + 1);  // without v2 at all: v1 with IPv4 over v1 link-local
    c = choose_among(table, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 2);
    CHECK(c.gid == v4(192, 0, 2, 1));

    // RoCE v1 link-local over IB.
    c = choose_among({{0, link_local2, IB}, {5, link_local, V1}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 5);
    CHECK(c.gid == link_local);

    // RoCE v1 with IPv4 over IB (even an IB "GID" that looks IPv4-mapped).
    c = choose_among({{0, v4(10, 0, 0, 1), IB}, {7, v4(10, 0, 0, 2), V1}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 7);

    // Only IB: it is chosen.
    c = choose_among({{4, link_local, IB}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 4);
    CHECK(c.gid == link_local);
}

TEST_CASE("choose_among: the lowest index wins within a rank, whatever the order")
{
    GidChoice c = choose_among({{9, v4(192, 0, 2, 9), V2}, {4, v4(192, 0, 2, 4), V2}, {6, v4(192, 0, 2, 6), V2}},
                               std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 4);
    CHECK(c.gid == v4(192, 0, 2, 4));

    c = choose_among({{3, link_local2, V2}, {1, link_local, V2}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 1);
    CHECK(c.gid == link_local);

    // A better rank at a higher index still wins over a lower index.
    c = choose_among({{0, link_local, V2}, {200, v4(198, 51, 100, 7), V2}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.index == 200);
}

TEST_CASE("choose_among: `wanted` picks that index whatever its rank, or nothing")
{
    const std::vector<GidCandidate> table{
        {0, link_local, V1},
        {1, link_local, V2},
        {2, v4(192, 0, 2, 1), V1},
        {3, v4(192, 0, 2, 1), V2},
    };
    GidChoice c = choose_among(table, 0u);
    REQUIRE(c.found);
    CHECK(c.index == 0);
    CHECK(c.gid == link_local);
    CHECK(contains(c.why, "index 0 as asked"));
    CHECK(contains(c.why, "RoCE v1"));

    c = choose_among(table, 2u);
    REQUIRE(c.found);
    CHECK(c.index == 2);
    CHECK(contains(c.why, "index 2 as asked (RoCE v1 with IPv4 192.0.2.1)"));

    c = choose_among(table, 4u);
    CHECK_FALSE(c.found);
    CHECK(c.gid == Gid{});
    CHECK(c.why.empty());
}

TEST_CASE("choose_among: an empty table finds nothing")
{
    GidChoice c = choose_among({}, std::nullopt);
    CHECK_FALSE(c.found);
    CHECK(c.index == 0);
    CHECK(c.gid == Gid{});
    CHECK(c.active_mtu == 0);
    CHECK(c.why.empty());
    CHECK_FALSE(choose_among({}, 1u).found);
}

TEST_CASE("choose_among: `why` names the type, the IPv4 address and the preference order")
{
    GidChoice c = choose_among({{1, link_local, V2}, {3, v4(192, 0, 2, 1), V2}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(contains(c.why, "RoCE v2 with IPv4 192.0.2.1"));
    CHECK(contains(c.why, "RoCE v2 with an IPv4 address is preferred, then RoCE v2, RoCE v1, IB"));

    c = choose_among({{1, link_local, V2}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.why.rfind("RoCE v2 —", 0) == 0);
    CHECK_FALSE(contains(c.why, "with IPv4 "));

    c = choose_among({{0, link_local, IB}}, std::nullopt);
    REQUIRE(c.found);
    CHECK(c.why.rfind("IB —", 0) == 0);
}

// GidChoice::index is a uint8_t (as ah_attr.grh.sgid_index is), but
// candidates carry 32-bit indices and nothing skips those above 255: a
// table whose best GID sits at index 256 comes back as index 0 together
// with index 256's GID.
TEST_CASE("choose_among: an index above 255 is not reported as another index")
{
    const GidChoice c = choose_among({{0, link_local, IB}, {256, v4(192, 0, 2, 1), V2}}, std::nullopt);
    REQUIRE(c.found);
    // Either index 256 is skipped (index 0 and its GID chosen) or it is not
    // squeezed into 8 bits; what must not happen is index 0 with 256's GID.
    const bool consistent = (c.index == 0 && c.gid == link_local);
    CHECK(consistent);
}

TEST_CASE("choose_among: the destination's GID kinds first")
{
    using qps::decode::GidKind;
    const Gid global6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    const std::vector<GidCandidate> table{{0, link_local, V2}, {1, v4(192, 0, 2, 1), V2}, {2, global6, V2}};
    const std::array<GidKind, 1> six{GidKind::ipv6_global};
    const auto c6 = choose_among(table, std::nullopt, six);
    CHECK(c6.index == 2);
    CHECK(contains(c6.why, "destination's kind first (global IPv6)"));
    const std::array<GidKind, 1> ll{GidKind::ipv6_link_local};
    CHECK(choose_among(table, std::nullopt, ll).index == 0);
    // No GID of the kind: the usual ranking (the check then refuses it by name).
    const std::vector<GidCandidate> only_ll{{0, link_local, V2}};
    const std::array<GidKind, 1> four{GidKind::ipv4};
    CHECK(choose_among(only_ll, std::nullopt, four).index == 0);
    // -x still rules.
    CHECK(choose_among(table, 1u, six).index == 1);
}

TEST_CASE("index_of_address: --bind's GID, RoCE v2 before v1, IPv4 as its mapped GID, IPv6 as is")
{
    const std::vector<GidCandidate> table{{0, link_local, IBV_GID_TYPE_ROCE_V2},
                                          {1, v4(192, 0, 2, 1), IBV_GID_TYPE_IB},  // RoCE v1
                                          {2, v4(192, 0, 2, 1), IBV_GID_TYPE_ROCE_V2},
                                          {3, v4(198, 51, 100, 7), IBV_GID_TYPE_IB}};
    CHECK(index_of_address(table, "192.0.2.1") == 2u);
    CHECK(index_of_address(table, "198.51.100.7") == 3u);  // only v1 holds it
    CHECK(index_of_address(table, "fe80::5054:ff:fe12:3456") == 0u);
    CHECK_FALSE(index_of_address(table, "192.0.2.9"));
    CHECK_FALSE(index_of_address(table, "lab-a"));  // a name is not an address
    CHECK_FALSE(index_of_address({}, "192.0.2.1"));
}
