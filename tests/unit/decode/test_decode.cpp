#include <array>
#include <doctest/doctest.h>

#include "src/decode/decode.hpp"

using namespace qps::decode;

TEST_CASE("decode_enum names known values and keeps unknown ones as hex")
{
    constexpr std::array<EnumEntry<int>, 2> t{{{1, "ONE"}, {7, "SEVEN"}}};
    CHECK(decode_enum<int>(t, 7).name == "SEVEN");
    CHECK(decode_enum<int>(t, 7).known);
    const Decoded u = decode_enum<int>(t, 42);
    CHECK(u.raw == 42);
    CHECK_FALSE(u.known);
    CHECK(u.name == "UNKNOWN(0x2a)");
    CHECK(decode_enum<int>(t, -3).name == "UNKNOWN(-3)");
}

TEST_CASE("decode_flags lists named bits in table order and never drops a bit")
{
    constexpr std::array<FlagEntry, 2> t{{{1u << 4, "B4"}, {1u << 0, "B0"}}};
    const Flags f = decode_flags(t, 0x1 | 0x10 | 0x100);
    CHECK(f.raw == 0x111);
    REQUIRE(f.names.size() == 2);
    CHECK(f.names[0] == "B4");
    CHECK(f.names[1] == "B0");
    CHECK(f.unknown == 0x100);
    CHECK(decode_flags(t, 0).names.empty());
}

TEST_CASE("table checks")
{
    constexpr std::array<FlagEntry, 2> ok{{{1, "A"}, {2, "B"}}};
    constexpr std::array<FlagEntry, 2> twice{{{1, "A"}, {1, "B"}}};
    constexpr std::array<FlagEntry, 1> two_bits{{{3, "AB"}}};
    static_assert(bits_single_and_unique(ok));
    static_assert(!bits_single_and_unique(twice));
    static_assert(!bits_single_and_unique(two_bits));
    static_assert(named_bits(ok) == 3);
}

TEST_CASE("format_guid prints network-order GUIDs as four groups")
{
    // 0x0002c903000a1b2c stored big-endian
    const std::uint64_t be = htobe64(0x0002c903000a1b2cull);
    CHECK(format_guid(be) == "0002:c903:000a:1b2c");
}
