// GIDs: text form, GID type, the IPv4 address inside an IPv4-mapped GID.
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <string_view>

#include "src/decode/decode.hpp"

namespace qps::decode {

inline constexpr std::array<EnumEntry<int>, 3> gid_type_table{{
    {IBV_GID_TYPE_IB, "IB"},
    {IBV_GID_TYPE_ROCE_V1, "RoCE v1"},
    {IBV_GID_TYPE_ROCE_V2, "RoCE v2"},
}};

using GidBytes = std::array<std::uint8_t, 16>;

Decoded gid_type(int raw);
// Full, colon-separated form as ibv_devinfo and sysfs print it:
// "fe80:0000:0000:0000:5054:00ff:fe12:3456".
std::string format_gid(const GidBytes& gid);
// "192.0.2.1" when the GID is ::ffff:a.b.c.d, else nullopt.
std::optional<std::string> gid_ipv4(const GidBytes& gid);
bool gid_is_zero(const GidBytes& gid);

// The kind of address a GID carries, which decides what a RoCE v2 packet
// from it can reach: an IPv4-mapped GID (::ffff:a.b.c.d) IPv4 peers, a
// link-local one (fe80::/10, made from the MAC) only its own segment by
// IPv6 link-local, any other a global IPv6 peer.
enum class GidKind { ipv4, ipv6_global, ipv6_link_local };
GidKind gid_kind(const GidBytes& gid);
// "IPv4", "global IPv6", "link-local IPv6".
std::string_view gid_kind_name(GidKind kind);

}  // namespace qps::decode
