// Port attributes: state, physical state, link layer, width, speed, MTU,
// capability masks. Values are those of the InfiniBand spec (PortInfo) as
// libibverbs and the kernel report them.
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/decode.hpp"

namespace qps::decode {

inline constexpr std::array<EnumEntry<int>, 6> port_state_table{{
    {IBV_PORT_NOP, "NOP"},
    {IBV_PORT_DOWN, "DOWN"},
    {IBV_PORT_INIT, "INIT"},
    {IBV_PORT_ARMED, "ARMED"},
    {IBV_PORT_ACTIVE, "ACTIVE"},
    {IBV_PORT_ACTIVE_DEFER, "ACTIVE_DEFER"},
}};
static_assert(port_state_table.size() == IBV_PORT_ACTIVE_DEFER + 1, "every ibv_port_state");

// PortInfo:PortPhysicalState (IBA 14.2.5.6); 0 means "no state change".
inline constexpr std::array<EnumEntry<int>, 8> phys_state_table{{
    {0, "NO_STATE_CHANGE"},
    {1, "SLEEP"},
    {2, "POLLING"},
    {3, "DISABLED"},
    {4, "PORT_CONFIGURATION_TRAINING"},
    {5, "LINK_UP"},
    {6, "LINK_ERROR_RECOVERY"},
    {7, "PHY_TEST"},
}};

inline constexpr std::array<EnumEntry<int>, 3> link_layer_table{{
    {IBV_LINK_LAYER_UNSPECIFIED, "UNSPECIFIED"},
    {IBV_LINK_LAYER_INFINIBAND, "InfiniBand"},
    {IBV_LINK_LAYER_ETHERNET, "Ethernet"},
}};

struct WidthEntry {
    int value;
    std::string_view name;
    int lanes;
};
inline constexpr std::array<WidthEntry, 5> width_table{{
    {1, "1X", 1},
    {2, "4X", 4},
    {4, "8X", 8},
    {8, "12X", 12},
    {16, "2X", 2},
}};

// Per-lane speeds: signalling rate (what sysfs `rate` and ibstat multiply
// by the width) and data rate after line encoding (8b/10b up to QDR,
// 64b/66b from FDR10, PAM4 with FEC from HDR).
struct SpeedEntry {
    int value;
    std::string_view name;
    double lane_gbps;       // nominal, as the kernel's sysfs `rate` counts it
    double lane_data_gbps;  // payload bits per second per lane
};
inline constexpr std::array<SpeedEntry, 9> speed_table{{
    {1, "SDR", 2.5, 2.0},
    {2, "DDR", 5.0, 4.0},
    {4, "QDR", 10.0, 8.0},
    {8, "FDR10", 10.0, 10.0 * 64 / 66},
    {16, "FDR", 14.0, 14.0625 * 64 / 66},
    {32, "EDR", 25.0, 25.78125 * 64 / 66},
    {64, "HDR", 50.0, 50.0},
    {128, "NDR", 100.0, 100.0},
    {256, "XDR", 200.0, 200.0},
}};

inline constexpr std::array<EnumEntry<int>, 5> mtu_table{{
    {IBV_MTU_256, "256"},
    {IBV_MTU_512, "512"},
    {IBV_MTU_1024, "1024"},
    {IBV_MTU_2048, "2048"},
    {IBV_MTU_4096, "4096"},
}};

// PortInfo:CapabilityMask (IBA 14.2.5.6, Linux ib_port_capability_mask_bits).
// Bit 26 is "IsOtherLocalChangesNoticeSupported" in the spec; on RoCE ports
// Linux reuses it to say GIDs are derived from IP addresses.
inline constexpr std::array<FlagEntry, 30> port_cap_flags_table{{
    {1u << 1, "SM"},
    {1u << 2, "NOTICE_SUP"},
    {1u << 3, "TRAP_SUP"},
    {1u << 4, "OPT_IPD_SUP"},
    {1u << 5, "AUTO_MIGR_SUP"},
    {1u << 6, "SL_MAP_SUP"},
    {1u << 7, "MKEY_NVRAM"},
    {1u << 8, "PKEY_NVRAM"},
    {1u << 9, "LED_INFO_SUP"},
    {1u << 10, "SM_DISABLED"},
    {1u << 11, "SYS_IMAGE_GUID_SUP"},
    {1u << 12, "PKEY_SW_EXT_PORT_TRAP_SUP"},
    {1u << 13, "CABLE_INFO_SUP"},
    {1u << 14, "EXTENDED_SPEEDS_SUP"},
    {1u << 15, "CAP_MASK2_SUP"},
    {1u << 16, "CM_SUP"},
    {1u << 17, "SNMP_TUNNEL_SUP"},
    {1u << 18, "REINIT_SUP"},
    {1u << 19, "DEVICE_MGMT_SUP"},
    {1u << 20, "VENDOR_CLASS_SUP"},
    {1u << 21, "DR_NOTICE_SUP"},
    {1u << 22, "CAP_MASK_NOTICE_SUP"},
    {1u << 23, "BOOT_MGMT_SUP"},
    {1u << 24, "LINK_LATENCY_SUP"},
    {1u << 25, "CLIENT_REG_SUP"},
    {1u << 26, "IP_BASED_GIDS"},
    {1u << 27, "LINK_SPEED_WIDTH_TABLE_SUP"},
    {1u << 28, "VENDOR_SPECIFIC_MADS_TABLE_SUP"},
    {1u << 29, "MCAST_PKEY_TRAP_SUPPRESSION_SUP"},
    {1u << 30, "MCAST_FDB_TOP_SUP"},
}};

// PortInfo:CapabilityMask2 (Linux ib_port_capability_mask2_bits).
inline constexpr std::array<FlagEntry, 9> port_cap_flags2_table{{
    {1u << 0, "SET_NODE_DESC_SUP"},
    {1u << 1, "INFO_EXT_SUP"},
    {1u << 2, "VIRT_SUP"},
    {1u << 3, "SWITCH_PORT_STATE_TABLE_SUP"},
    {1u << 4, "LINK_WIDTH_2X_SUP"},
    {1u << 5, "LINK_SPEED_HDR_SUP"},
    {1u << 10, "LINK_SPEED_NDR_SUP"},
    {1u << 11, "EXTENDED_SPEEDS2_SUP"},
    {1u << 12, "LINK_SPEED_XDR_SUP"},
}};

// libibverbs' own enums must be fully covered by the tables above.
inline constexpr std::uint64_t libibverbs_port_cap_bits =
    IBV_PORT_SM | IBV_PORT_NOTICE_SUP | IBV_PORT_TRAP_SUP | IBV_PORT_OPT_IPD_SUP |
    IBV_PORT_AUTO_MIGR_SUP | IBV_PORT_SL_MAP_SUP | IBV_PORT_MKEY_NVRAM | IBV_PORT_PKEY_NVRAM |
    IBV_PORT_LED_INFO_SUP | IBV_PORT_SYS_IMAGE_GUID_SUP | IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP |
    IBV_PORT_EXTENDED_SPEEDS_SUP | IBV_PORT_CAP_MASK2_SUP | IBV_PORT_CM_SUP |
    IBV_PORT_SNMP_TUNNEL_SUP | IBV_PORT_REINIT_SUP | IBV_PORT_DEVICE_MGMT_SUP |
    IBV_PORT_VENDOR_CLASS_SUP | IBV_PORT_DR_NOTICE_SUP | IBV_PORT_CAP_MASK_NOTICE_SUP |
    IBV_PORT_BOOT_MGMT_SUP | IBV_PORT_LINK_LATENCY_SUP | IBV_PORT_CLIENT_REG_SUP |
    IBV_PORT_IP_BASED_GIDS;
static_assert((named_bits(port_cap_flags_table) & libibverbs_port_cap_bits) ==
              libibverbs_port_cap_bits);
inline constexpr std::uint64_t libibverbs_port_cap2_bits =
    IBV_PORT_SET_NODE_DESC_SUP | IBV_PORT_INFO_EXT_SUP | IBV_PORT_VIRT_SUP |
    IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP | IBV_PORT_LINK_WIDTH_2X_SUP |
    IBV_PORT_LINK_SPEED_HDR_SUP | IBV_PORT_LINK_SPEED_NDR_SUP;
static_assert((named_bits(port_cap_flags2_table) & libibverbs_port_cap2_bits) ==
              libibverbs_port_cap2_bits);
static_assert(bits_single_and_unique(port_cap_flags_table));
static_assert(bits_single_and_unique(port_cap_flags2_table));
static_assert(values_unique<int>(port_state_table));
static_assert(values_unique<int>(phys_state_table));

// PortInfo:VLCap: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.
struct VlEntry {
    int value;
    std::string_view name;
    int count;
};
inline constexpr std::array<VlEntry, 5> vl_cap_table{{
    {1, "VL0", 1},
    {2, "VL0-1", 2},
    {3, "VL0-3", 4},
    {4, "VL0-7", 8},
    {5, "VL0-14", 15},
}};

Decoded port_state(int raw);
Decoded vl_cap(int raw);                // name "VL0-7", value = number of data VLs
Decoded phys_state(int raw);
Decoded link_layer(int raw);
Decoded width(int raw);                 // name "4X", value = lanes
Decoded speed(int raw);                 // name "EDR", value = nominal Gb/s per lane
Decoded mtu(int raw);                   // name "1024", value = bytes
// 1024 -> IBV_MTU_1024; nullopt for anything but 256, 512, 1024, 2048, 4096.
std::optional<ibv_mtu> mtu_from_bytes(std::uint64_t bytes);
Flags port_cap_flags(std::uint32_t raw);
Flags port_cap_flags2(std::uint16_t raw);

// The link's rate from width and speed codes; nullopt when either is unknown.
struct LinkRate {
    double gbps;       // nominal: lanes x lane signalling rate (sysfs `rate`)
    double data_gbps;  // payload after encoding
};
std::optional<LinkRate> link_rate(int width_raw, int speed_raw);

// A P_Key table entry as read (host byte order).
struct PkeyEntry {
    std::uint16_t index = 0;
    std::uint16_t pkey = 0;
};
// Why a QP cannot use P_Key index `index` of a port whose table has
// `table_len` entries (`entries`: those read, the first few are enough for
// the text), or nullopt when it can: "--pkey-index 5: rxe0 port 1's P_Key
// table has 1 entry (0 = 0xffff); valid are 0..0". An entry read as 0 (its
// low 15 bits) is empty: a QP on it reaches nobody.
std::optional<std::string> pkey_index_problem(std::string_view device, unsigned port, unsigned table_len,
                                              const std::vector<PkeyEntry>& entries, unsigned index);

}  // namespace qps::decode
