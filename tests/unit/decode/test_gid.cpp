#include <doctest/doctest.h>

#include "src/decode/gid.hpp"

using namespace qps::decode;

TEST_CASE("GID type: every value and an unknown one")
{
    CHECK(gid_type(0).name == "IB");
    CHECK(gid_type(1).name == "RoCE v1");
    CHECK(gid_type(2).name == "RoCE v2");
    CHECK_FALSE(gid_type(3).known);
}

TEST_CASE("GID text and IPv4-mapped addresses")
{
    const GidBytes v4{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
    CHECK(format_gid(v4) == "0000:0000:0000:0000:0000:ffff:c000:0201");
    CHECK(gid_ipv4(v4) == "192.0.2.1");
    const GidBytes link_local{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56};
    CHECK(format_gid(link_local) == "fe80:0000:0000:0000:5054:00ff:fe12:3456");
    CHECK_FALSE(gid_ipv4(link_local));
    GidBytes almost = v4;
    almost[9] = 1;  // not ::ffff:0:0/96
    CHECK_FALSE(gid_ipv4(almost));
    CHECK(gid_is_zero(GidBytes{}));
    CHECK_FALSE(gid_is_zero(v4));
}
