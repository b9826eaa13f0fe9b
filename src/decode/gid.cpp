#include "src/decode/gid.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace qps::decode {

Decoded gid_type(int raw) { return decode_enum<int>(gid_type_table, raw); }

std::string format_gid(const GidBytes& g)
{
    std::string s;
    s.reserve(39);
    for (std::size_t i = 0; i < g.size(); i += 2) {
        if (i)
            s += ':';
        s += fmt::format("{:02x}{:02x}", g[i], g[i + 1]);
    }
    return s;
}

std::optional<std::string> gid_ipv4(const GidBytes& g)
{
    const bool mapped = std::all_of(g.begin(), g.begin() + 10, [](auto b) { return b == 0; }) &&
                        g[10] == 0xff && g[11] == 0xff;
    if (!mapped)
        return std::nullopt;
    return fmt::format("{}.{}.{}.{}", g[12], g[13], g[14], g[15]);
}

bool gid_is_zero(const GidBytes& g)
{
    return std::all_of(g.begin(), g.end(), [](auto b) { return b == 0; });
}

GidKind gid_kind(const GidBytes& g)
{
    if (gid_ipv4(g))
        return GidKind::ipv4;
    if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80)
        return GidKind::ipv6_link_local;
    return GidKind::ipv6_global;
}

std::string_view gid_kind_name(GidKind kind)
{
    switch (kind) {
    case GidKind::ipv4: return "IPv4";
    case GidKind::ipv6_global: return "global IPv6";
    case GidKind::ipv6_link_local: return "link-local IPv6";
    }
    return "?";
}

}  // namespace qps::decode
