#include <doctest/doctest.h>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "src/decode/port.hpp"

using namespace qps::decode;

TEST_CASE("port state: every value and an unknown one")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "NOP"}, {1, "DOWN"}, {2, "INIT"}, {3, "ARMED"}, {4, "ACTIVE"}, {5, "ACTIVE_DEFER"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(port_state(raw).name == name);
        CHECK(port_state(raw).known);
    }
    CHECK_FALSE(port_state(6).known);
    CHECK(port_state(6).name == "UNKNOWN(0x6)");
}

TEST_CASE("physical state: every value and an unknown one")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "NO_STATE_CHANGE"}, {1, "SLEEP"},   {2, "POLLING"},
        {3, "DISABLED"},        {4, "PORT_CONFIGURATION_TRAINING"},
        {5, "LINK_UP"},         {6, "LINK_ERROR_RECOVERY"},
        {7, "PHY_TEST"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(phys_state(raw).name == name);
    }
    CHECK_FALSE(phys_state(8).known);
}

TEST_CASE("link layer")
{
    CHECK(link_layer(0).name == "UNSPECIFIED");
    CHECK(link_layer(1).name == "InfiniBand");
    CHECK(link_layer(2).name == "Ethernet");
    CHECK_FALSE(link_layer(3).known);
}

TEST_CASE("width: code to name and lanes")
{
    const std::vector<std::tuple<int, std::string, double>> expect{
        {1, "1X", 1}, {2, "4X", 4}, {4, "8X", 8}, {8, "12X", 12}, {16, "2X", 2}};
    for (const auto& [raw, name, lanes] : expect) {
        CAPTURE(raw);
        CHECK(width(raw).name == name);
        CHECK(width(raw).value == lanes);
    }
    CHECK_FALSE(width(3).known);
    CHECK_FALSE(width(3).value.has_value());
}

TEST_CASE("speed: every code from SDR to XDR")
{
    const std::vector<std::tuple<int, std::string, double>> expect{
        {1, "SDR", 2.5},  {2, "DDR", 5},   {4, "QDR", 10},   {8, "FDR10", 10},  {16, "FDR", 14},
        {32, "EDR", 25}, {64, "HDR", 50}, {128, "NDR", 100}, {256, "XDR", 200}};
    for (const auto& [raw, name, gbps] : expect) {
        CAPTURE(raw);
        CHECK(speed(raw).name == name);
        CHECK(speed(raw).value == doctest::Approx(gbps));
    }
    CHECK_FALSE(speed(0).known);
    CHECK_FALSE(speed(3).known);
}

TEST_CASE("link rate: width x speed, nominal and after encoding")
{
    auto r = link_rate(2, 32);  // 4X EDR
    REQUIRE(r);
    CHECK(r->gbps == doctest::Approx(100));
    CHECK(r->data_gbps == doctest::Approx(100).epsilon(0.001));
    r = link_rate(1, 4);  // 1X QDR: 8b/10b
    REQUIRE(r);
    CHECK(r->gbps == doctest::Approx(10));
    CHECK(r->data_gbps == doctest::Approx(8));
    r = link_rate(2, 16);  // 4X FDR = 56 Gb/s nominal, 54.5 data
    REQUIRE(r);
    CHECK(r->gbps == doctest::Approx(56));
    CHECK(r->data_gbps == doctest::Approx(54.54).epsilon(0.001));
    CHECK_FALSE(link_rate(3, 32));
    CHECK_FALSE(link_rate(2, 3));
}

TEST_CASE("MTU: enum to bytes")
{
    const std::vector<std::pair<int, double>> expect{{1, 256}, {2, 512}, {3, 1024}, {4, 2048}, {5, 4096}};
    for (const auto& [raw, bytes] : expect) {
        CAPTURE(raw);
        CHECK(mtu(raw).value == bytes);
        CHECK(mtu(raw).unit == "bytes");
    }
    CHECK_FALSE(mtu(0).known);
    CHECK_FALSE(mtu(6).known);
}

TEST_CASE("port capability flags: every named bit, and unknown bits kept")
{
    const std::vector<std::pair<int, std::string>> expect{
        {1, "SM"},
        {2, "NOTICE_SUP"},
        {3, "TRAP_SUP"},
        {4, "OPT_IPD_SUP"},
        {5, "AUTO_MIGR_SUP"},
        {6, "SL_MAP_SUP"},
        {7, "MKEY_NVRAM"},
        {8, "PKEY_NVRAM"},
        {9, "LED_INFO_SUP"},
        {10, "SM_DISABLED"},
        {11, "SYS_IMAGE_GUID_SUP"},
        {12, "PKEY_SW_EXT_PORT_TRAP_SUP"},
        {13, "CABLE_INFO_SUP"},
        {14, "EXTENDED_SPEEDS_SUP"},
        {15, "CAP_MASK2_SUP"},
        {16, "CM_SUP"},
        {17, "SNMP_TUNNEL_SUP"},
        {18, "REINIT_SUP"},
        {19, "DEVICE_MGMT_SUP"},
        {20, "VENDOR_CLASS_SUP"},
        {21, "DR_NOTICE_SUP"},
        {22, "CAP_MASK_NOTICE_SUP"},
        {23, "BOOT_MGMT_SUP"},
        {24, "LINK_LATENCY_SUP"},
        {25, "CLIENT_REG_SUP"},
        {26, "IP_BASED_GIDS"},
        {27, "LINK_SPEED_WIDTH_TABLE_SUP"},
        {28, "VENDOR_SPECIFIC_MADS_TABLE_SUP"},
        {29, "MCAST_PKEY_TRAP_SUPPRESSION_SUP"},
        {30, "MCAST_FDB_TOP_SUP"},
    };
    for (const auto& [bit, name] : expect) {
        CAPTURE(bit);
        const Flags f = port_cap_flags(1u << bit);
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
        CHECK(f.unknown == 0);
    }
    // bits 0 and 31 have no name: kept as unknown
    const Flags f = port_cap_flags(1u | (1u << 31) | (1u << 16));
    CHECK(f.names == std::vector<std::string>{"CM_SUP"});
    CHECK(f.unknown == (1u | (1u << 31)));
    // what rxe reports: CM_SUP | IP_BASED_GIDS
    CHECK(port_cap_flags(0x04010000).names == std::vector<std::string>{"CM_SUP", "IP_BASED_GIDS"});
}

TEST_CASE("port capability flags 2: every named bit, and unknown bits kept")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "SET_NODE_DESC_SUP"}, {1, "INFO_EXT_SUP"},           {2, "VIRT_SUP"},
        {3, "SWITCH_PORT_STATE_TABLE_SUP"}, {4, "LINK_WIDTH_2X_SUP"}, {5, "LINK_SPEED_HDR_SUP"},
        {10, "LINK_SPEED_NDR_SUP"}, {11, "EXTENDED_SPEEDS2_SUP"}, {12, "LINK_SPEED_XDR_SUP"}};
    for (const auto& [bit, name] : expect) {
        CAPTURE(bit);
        const Flags f = port_cap_flags2(static_cast<std::uint16_t>(1u << bit));
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
    }
    const Flags f = port_cap_flags2(1u << 6);
    CHECK(f.names.empty());
    CHECK(f.unknown == (1u << 6));
}

TEST_CASE("VL capability: code to VL range and count")
{
    const std::vector<std::tuple<int, std::string, double>> expect{
        {1, "VL0", 1}, {2, "VL0-1", 2}, {3, "VL0-3", 4}, {4, "VL0-7", 8}, {5, "VL0-14", 15}};
    for (const auto& [raw, name, count] : expect) {
        CAPTURE(raw);
        CHECK(vl_cap(raw).name == name);
        CHECK(vl_cap(raw).value == count);
    }
    CHECK_FALSE(vl_cap(0).known);
    CHECK_FALSE(vl_cap(6).known);
}

TEST_CASE("MTU: bytes to enum")
{
    CHECK(mtu_from_bytes(256) == IBV_MTU_256);
    CHECK(mtu_from_bytes(1024) == IBV_MTU_1024);
    CHECK(mtu_from_bytes(4096) == IBV_MTU_4096);
    CHECK_FALSE(mtu_from_bytes(0));
    CHECK_FALSE(mtu_from_bytes(3));
    CHECK_FALSE(mtu_from_bytes(8192));
}

TEST_CASE("pkey_index_problem: past the table, an empty entry, a good one")
{
    const std::vector<PkeyEntry> one{{0, 0xffff}};
    CHECK_FALSE(pkey_index_problem("rxe0", 1, 1, one, 0));
    CHECK(pkey_index_problem("rxe0", 1, 1, one, 5).value_or("") ==
          "--pkey-index 5: rxe0 port 1's P_Key table has 1 entry (0 = 0xffff); valid are 0..0");
    const std::vector<PkeyEntry> two{{0, 0xffff}, {1, 0x8000}};
    const auto empty = pkey_index_problem("mlx5_0", 2, 128, two, 1);
    REQUIRE(empty);
    CHECK(empty->find("that entry of mlx5_0 port 2's P_Key table has 128 entries (0 = 0xffff, 1 = 0x8000, ...) is "
                      "empty (P_Key 0x8000)") != std::string::npos);
    const std::vector<PkeyEntry> limited{{0, 0xffff}, {1, 0x8001}};
    CHECK_FALSE(pkey_index_problem("mlx5_0", 2, 128, limited, 1));
    CHECK(pkey_index_problem("mlx5_0", 2, 128, limited, 128).value_or("").ends_with("valid are 0..127"));
}
