// Device attributes: node type, transport, atomic capability, capability flags.
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <string>
#include <string_view>

#include "src/decode/decode.hpp"

namespace qps::decode {

inline constexpr std::array<EnumEntry<int>, 8> node_type_table{{
    {IBV_NODE_UNKNOWN, "UNKNOWN"},
    {IBV_NODE_CA, "CA"},
    {IBV_NODE_SWITCH, "SWITCH"},
    {IBV_NODE_ROUTER, "ROUTER"},
    {IBV_NODE_RNIC, "RNIC"},
    {IBV_NODE_USNIC, "USNIC"},
    {IBV_NODE_USNIC_UDP, "USNIC_UDP"},
    {IBV_NODE_UNSPECIFIED, "UNSPECIFIED"},
}};
static_assert(node_type_table.size() == IBV_NODE_UNSPECIFIED + 1, "every ibv_node_type");

inline constexpr std::array<EnumEntry<int>, 6> transport_table{{
    {IBV_TRANSPORT_UNKNOWN, "UNKNOWN"},
    {IBV_TRANSPORT_IB, "InfiniBand"},
    {IBV_TRANSPORT_IWARP, "iWARP"},
    {IBV_TRANSPORT_USNIC, "usNIC"},
    {IBV_TRANSPORT_USNIC_UDP, "usNIC UDP"},
    {IBV_TRANSPORT_UNSPECIFIED, "UNSPECIFIED"},
}};
static_assert(transport_table.size() == IBV_TRANSPORT_UNSPECIFIED + 2, "every ibv_transport_type");

// The transports whose connected QPs do not reach RTR/RTS through
// ibv_modify_qp with the peer's address (how qpscope connects them), and
// what connects them instead. iWARP: the kernel's iw_cm moves the QP to RTS
// once its TCP connection and MPA exchange are done, driven from user space
// by rdma_cm (rdma_connect, rdma_accept). Not listed: ibv_modify_qp works.
// `carries`: what its QPs carry instead of UD (iWARP has RC only: its
// connection is a TCP stream).
struct ConnectPath {
    int transport;
    std::string_view through;
    std::string_view carries;
};
inline constexpr std::array<ConnectPath, 1> cm_only_transport_table{{
    {IBV_TRANSPORT_IWARP, "rdma_cm", "RC QPs only, over a TCP stream (no UD)"},
}};

inline constexpr std::array<EnumEntry<int>, 3> atomic_cap_table{{
    {IBV_ATOMIC_NONE, "NONE"},
    {IBV_ATOMIC_HCA, "HCA"},
    {IBV_ATOMIC_GLOB, "GLOB"},
}};
static_assert(atomic_cap_table.size() == IBV_ATOMIC_GLOB + 1, "every ibv_atomic_cap");

// device_cap_flags_ex (the kernel's ib_uverbs_device_cap_flags, 64 bits).
inline constexpr std::array<FlagEntry, 26> device_cap_flags_table{{
    {1ull << 0, "RESIZE_MAX_WR"},
    {1ull << 1, "BAD_PKEY_CNTR"},
    {1ull << 2, "BAD_QKEY_CNTR"},
    {1ull << 3, "RAW_MULTI"},
    {1ull << 4, "AUTO_PATH_MIG"},
    {1ull << 5, "CHANGE_PHY_PORT"},
    {1ull << 6, "UD_AV_PORT_ENFORCE"},
    {1ull << 7, "CURR_QP_STATE_MOD"},
    {1ull << 8, "SHUTDOWN_PORT"},
    {1ull << 9, "INIT_TYPE"},
    {1ull << 10, "PORT_ACTIVE_EVENT"},
    {1ull << 11, "SYS_IMAGE_GUID"},
    {1ull << 12, "RC_RNR_NAK_GEN"},
    {1ull << 13, "SRQ_RESIZE"},
    {1ull << 14, "N_NOTIFY_CQ"},
    {1ull << 17, "MEM_WINDOW"},
    {1ull << 18, "UD_IP_CSUM"},
    {1ull << 20, "XRC"},
    {1ull << 21, "MEM_MGT_EXTENSIONS"},
    {1ull << 23, "MEM_WINDOW_TYPE_2A"},
    {1ull << 24, "MEM_WINDOW_TYPE_2B"},
    {1ull << 25, "RC_IP_CSUM"},
    {1ull << 26, "RAW_IP_CSUM"},
    {1ull << 29, "MANAGED_FLOW_STEERING"},
    {1ull << 34, "RAW_SCATTER_FCS"},
    {1ull << 36, "PCI_WRITE_END_PADDING"},
}};

inline constexpr std::uint64_t libibverbs_device_cap_bits =
    IBV_DEVICE_RESIZE_MAX_WR | IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
    IBV_DEVICE_RAW_MULTI | IBV_DEVICE_AUTO_PATH_MIG | IBV_DEVICE_CHANGE_PHY_PORT |
    IBV_DEVICE_UD_AV_PORT_ENFORCE | IBV_DEVICE_CURR_QP_STATE_MOD | IBV_DEVICE_SHUTDOWN_PORT |
    IBV_DEVICE_INIT_TYPE | IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
    IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_N_NOTIFY_CQ |
    IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_UD_IP_CSUM | IBV_DEVICE_XRC |
    IBV_DEVICE_MEM_MGT_EXTENSIONS | IBV_DEVICE_MEM_WINDOW_TYPE_2A |
    IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_RC_IP_CSUM | IBV_DEVICE_RAW_IP_CSUM |
    IBV_DEVICE_MANAGED_FLOW_STEERING;
static_assert((named_bits(device_cap_flags_table) & libibverbs_device_cap_bits) ==
              libibverbs_device_cap_bits);
static_assert(bits_single_and_unique(device_cap_flags_table));

// odp_caps.general_caps
inline constexpr std::array<FlagEntry, 2> odp_general_caps_table{{
    {IBV_ODP_SUPPORT, "ODP_SUPPORT"},
    {IBV_ODP_SUPPORT_IMPLICIT, "ODP_SUPPORT_IMPLICIT"},
}};

// odp_caps.per_transport_caps.{rc,uc,ud}_odp_caps and xrc_odp_caps
inline constexpr std::array<FlagEntry, 6> odp_transport_caps_table{{
    {IBV_ODP_SUPPORT_SEND, "SEND"},
    {IBV_ODP_SUPPORT_RECV, "RECV"},
    {IBV_ODP_SUPPORT_WRITE, "WRITE"},
    {IBV_ODP_SUPPORT_READ, "READ"},
    {IBV_ODP_SUPPORT_ATOMIC, "ATOMIC"},
    {IBV_ODP_SUPPORT_SRQ_RECV, "SRQ_RECV"},
}};

inline constexpr std::array<FlagEntry, 4> raw_packet_caps_table{{
    {IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, "CVLAN_STRIPPING"},
    {IBV_RAW_PACKET_CAP_SCATTER_FCS, "SCATTER_FCS"},
    {IBV_RAW_PACKET_CAP_IP_CSUM, "IP_CSUM"},
    {IBV_RAW_PACKET_CAP_DELAY_DROP, "DELAY_DROP"},
}};

inline constexpr std::array<FlagEntry, 1> tm_caps_flags_table{{
    {IBV_TM_CAP_RC, "RC"},
}};

inline constexpr std::array<FlagEntry, 3> pci_atomic_sizes_table{{
    {IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP, "4_BYTE"},
    {IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP, "8_BYTE"},
    {IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP, "16_BYTE"},
}};

// supported_qpts masks (tso, rss, packet pacing): bit (1 << ibv_qp_type).
inline constexpr std::array<FlagEntry, 6> qp_types_mask_table{{
    {1u << IBV_QPT_RC, "RC"},
    {1u << IBV_QPT_UC, "UC"},
    {1u << IBV_QPT_UD, "UD"},
    {1u << IBV_QPT_RAW_PACKET, "RAW_PACKET"},
    {1u << IBV_QPT_XRC_SEND, "XRC_SEND"},
    {1u << IBV_QPT_XRC_RECV, "XRC_RECV"},
}};

Decoded node_type(int raw);
Decoded transport(int raw);
// What connects QPs of `transport` when ibv_modify_qp cannot ("rdma_cm"),
// from cm_only_transport_table; empty when ibv_modify_qp does.
std::string_view connects_only_through(int transport);
// What such a transport's QPs carry ("RC QPs only, ..."); empty otherwise.
std::string_view cm_only_carries(int transport);
Decoded atomic_cap(int raw);
// Why `--op OP` (an atomic) cannot run on `device`, whose atomic_cap is
// IBV_ATOMIC_NONE: "rxe9 does no atomics (atomic_cap NONE): run it on a
// device whose 'qpscope ports' shows atomics" (the name as 'qpscope ports'
// decodes it); the caller puts the operation asked for in front.
std::string no_atomics_text(std::string_view device);

// XRC (IBV_DEVICE_XRC, bit 20 of device_cap_flags): the drivers that have
// it, as the refusal names them. Neither rxe nor siw has it.
inline constexpr std::string_view xrc_drivers = "mlx4, mlx5, hns";
inline constexpr bool has_xrc(std::uint64_t device_cap_flags) { return (device_cap_flags & IBV_DEVICE_XRC) != 0; }
// "rxe0 has no XRC: device_cap_flags lacks XRC (bit 20); XRC needs a
// device that has it (mlx4, mlx5, hns)".
std::string no_xrc_text(std::string_view device);
Flags device_cap_flags(std::uint64_t raw);

}  // namespace qps::decode
