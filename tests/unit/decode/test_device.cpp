#include <doctest/doctest.h>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "src/decode/device.hpp"

using namespace qps::decode;

TEST_CASE("node type: every value and an unknown one")
{
    const std::vector<std::pair<int, std::string>> expect{
        {-1, "UNKNOWN"}, {1, "CA"},        {2, "SWITCH"},    {3, "ROUTER"},
        {4, "RNIC"},     {5, "USNIC"},     {6, "USNIC_UDP"}, {7, "UNSPECIFIED"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(node_type(raw).name == name);
    }
    CHECK_FALSE(node_type(0).known);
    CHECK_FALSE(node_type(8).known);
}

TEST_CASE("transport: every value and an unknown one")
{
    const std::vector<std::pair<int, std::string>> expect{
        {-1, "UNKNOWN"}, {0, "InfiniBand"}, {1, "iWARP"}, {2, "usNIC"}, {3, "usNIC UDP"}, {4, "UNSPECIFIED"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(transport(raw).name == name);
    }
    CHECK_FALSE(transport(5).known);
}

TEST_CASE("atomic capability")
{
    CHECK(atomic_cap(0).name == "NONE");
    CHECK(atomic_cap(1).name == "HCA");
    CHECK(atomic_cap(2).name == "GLOB");
    CHECK_FALSE(atomic_cap(3).known);
}

TEST_CASE("device capability flags: every named bit, and unknown bits kept")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "RESIZE_MAX_WR"},       {1, "BAD_PKEY_CNTR"},     {2, "BAD_QKEY_CNTR"},
        {3, "RAW_MULTI"},           {4, "AUTO_PATH_MIG"},     {5, "CHANGE_PHY_PORT"},
        {6, "UD_AV_PORT_ENFORCE"},  {7, "CURR_QP_STATE_MOD"}, {8, "SHUTDOWN_PORT"},
        {9, "INIT_TYPE"},           {10, "PORT_ACTIVE_EVENT"}, {11, "SYS_IMAGE_GUID"},
        {12, "RC_RNR_NAK_GEN"},     {13, "SRQ_RESIZE"},       {14, "N_NOTIFY_CQ"},
        {17, "MEM_WINDOW"},         {18, "UD_IP_CSUM"},       {20, "XRC"},
        {21, "MEM_MGT_EXTENSIONS"}, {23, "MEM_WINDOW_TYPE_2A"}, {24, "MEM_WINDOW_TYPE_2B"},
        {25, "RC_IP_CSUM"},         {26, "RAW_IP_CSUM"},      {29, "MANAGED_FLOW_STEERING"},
        {34, "RAW_SCATTER_FCS"},    {36, "PCI_WRITE_END_PADDING"}};
    for (const auto& [bit, name] : expect) {
        CAPTURE(bit);
        const Flags f = device_cap_flags(1ull << bit);
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
        CHECK(f.unknown == 0);
    }
    const Flags f = device_cap_flags((1ull << 15) | (1ull << 40) | 1ull);
    CHECK(f.names == std::vector<std::string>{"RESIZE_MAX_WR"});
    CHECK(f.unknown == ((1ull << 15) | (1ull << 40)));
}

namespace {
// Each named bit of a table decodes to exactly its expected name.
void check_bits(std::span<const FlagEntry> table, const std::vector<std::pair<std::uint64_t, std::string>>& expect)
{
    for (const auto& [bit, name] : expect) {
        CAPTURE(name);
        const Flags f = decode_flags(table, bit);
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
        CHECK(f.unknown == 0);
    }
    CHECK(table.size() == expect.size());
}
}  // namespace

TEST_CASE("capability tables: every named bit")
{
    check_bits(odp_general_caps_table, {{1, "ODP_SUPPORT"}, {2, "ODP_SUPPORT_IMPLICIT"}});
    check_bits(odp_transport_caps_table,
               {{1, "SEND"}, {2, "RECV"}, {4, "WRITE"}, {8, "READ"}, {16, "ATOMIC"}, {32, "SRQ_RECV"}});
    check_bits(raw_packet_caps_table,
               {{1, "CVLAN_STRIPPING"}, {2, "SCATTER_FCS"}, {4, "IP_CSUM"}, {8, "DELAY_DROP"}});
    check_bits(tm_caps_flags_table, {{1, "RC"}});
    check_bits(pci_atomic_sizes_table, {{1, "4_BYTE"}, {2, "8_BYTE"}, {4, "16_BYTE"}});
    check_bits(qp_types_mask_table, {{1u << 2, "RC"},
                                     {1u << 3, "UC"},
                                     {1u << 4, "UD"},
                                     {1u << 8, "RAW_PACKET"},
                                     {1u << 9, "XRC_SEND"},
                                     {1u << 10, "XRC_RECV"}});
    const Flags f = decode_flags(qp_types_mask_table, (1u << 2) | 1u);
    CHECK(f.unknown == 1u);
}

TEST_CASE("connection path: iWARP connects only through rdma_cm; InfiniBand and RoCE through ibv_modify_qp")
{
    CHECK(connects_only_through(IBV_TRANSPORT_IWARP) == "rdma_cm");
    CHECK(connects_only_through(IBV_TRANSPORT_IB).empty());
    CHECK(connects_only_through(IBV_TRANSPORT_UNKNOWN).empty());
    CHECK(connects_only_through(99).empty());
    for (const ConnectPath& c : cm_only_transport_table) {
        CAPTURE(c.transport);
        CHECK(transport(c.transport).known);  // a listed transport has a name to be refused by
    }
}

TEST_CASE("XRC: bit 20 of device_cap_flags; a device without it is refused by name, with the drivers that have it")
{
    CHECK(qps::decode::has_xrc(std::uint64_t{1} << 20));
    CHECK(qps::decode::has_xrc((std::uint64_t{1} << 20) | 1));
    CHECK_FALSE(qps::decode::has_xrc(0));
    CHECK_FALSE(qps::decode::has_xrc(~(std::uint64_t{1} << 20)));
    CHECK(qps::decode::no_xrc_text("rxe0") ==
          "rxe0 has no XRC: device_cap_flags lacks XRC (bit 20); XRC needs a device that has it (mlx4, mlx5, hns)");
    CHECK(qps::decode::no_xrc_text("siw0").starts_with("siw0 has no XRC: "));
}
