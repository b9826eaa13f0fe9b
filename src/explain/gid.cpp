// explain gid: what kind of GID it is, the IPv4 address inside a RoCE v2
// GID, the subnet prefix and interface ID (and the MAC inside an EUI-64 one).
#include <arpa/inet.h>
#include <fmt/format.h>

#include "src/decode/gid.hpp"
#include "src/explain/parse.hpp"

namespace qps::explain::detail {

namespace {

std::string hex_groups(const decode::GidBytes& g, std::size_t from, std::size_t to)
{
    std::string out;
    for (std::size_t i = from; i < to; i += 2)
        out += fmt::format("{}{:02x}{:02x}", out.empty() ? "" : ":", g[i], g[i + 1]);
    return out;
}

}  // namespace

Explanation gid(std::string_view value)
{
    const std::string text(trim(value));
    decode::GidBytes g{};
    if (::inet_pton(AF_INET6, text.c_str(), g.data()) != 1)
        throw UsageError(fmt::format("gid '{}': not a GID; valid: 8 groups of 4 hex digits (the form sysfs and "
                                     "ibv_devinfo print) or any IPv6 form such as ::ffff:10.0.0.1",
                                     value));
    Explanation e = start("gid", value);
    e.facts.push_back({"full", "full form", decode::format_gid(g)});
    const bool link_local = g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
    if (decode::gid_is_zero(g)) {
        e.name = "zero GID";
        e.facts.push_back({"meaning", "meaning",
                           "an empty GID table entry (no address behind it on RoCE) or a peer GID never filled "
                           "in: a QP aimed at it cannot connect"});
        e.checks = {"on RoCE, is an IP address configured on the netdev (ip addr)?",
                    "was the peer's GID exchanged before the QP was moved to RTR?"};
    } else if (const auto v4 = decode::gid_ipv4(g)) {
        e.name = fmt::format("IPv4-mapped, {}", *v4);
        e.facts.push_back({"ipv4", "IPv4 address", *v4});
        e.facts.push_back({"meaning", "meaning",
                           "a RoCE GID built from the netdev's IPv4 address; RoCE v2 routes it as IPv4/UDP 4791 "
                           "(the same GID may also be listed as RoCE v1)"});
        e.checks = {fmt::format("is {} still configured on the netdev, and reachable (ping)?", *v4),
                    "is the sgid-index a RoCE v2 entry of this address on both sides?"};
    } else if (g[0] == 0xff) {
        e.name = "multicast";
        e.facts.push_back({"meaning", "meaning", "a multicast GID (ff00::/8): an IB multicast group, UD only"});
    } else {
        e.name = link_local ? "link-local" : "global";
        e.facts.push_back({"subnet_prefix", "subnet prefix", hex_groups(g, 0, 8)});
        e.facts.push_back({"interface_id", "interface ID", hex_groups(g, 8, 16)});
        if (link_local)
            e.facts.push_back({"meaning", "meaning",
                               "fe80::/64: on InfiniBand the default subnet prefix with the port GUID as interface "
                               "ID (every IB port has one at index 0); on RoCE the netdev's IPv6 link-local "
                               "address, routable only on its own link"});
        else
            e.facts.push_back({"meaning", "meaning",
                               "a GID outside fe80::/64: on InfiniBand a subnet prefix the subnet manager "
                               "assigned; on RoCE a global IPv6 address of the netdev"});
        if (g[11] == 0xff && g[12] == 0xfe)
            e.facts.push_back({"mac", "MAC (EUI-64)",
                               fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", g[8] ^ 0x02, g[9], g[10],
                                           g[13], g[14], g[15])});
        else
            e.facts.push_back({"port_guid", "as a port GUID",
                               fmt::format("0x{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}", g[8], g[9], g[10],
                                           g[11], g[12], g[13], g[14], g[15])});
    }
    return e;
}

}  // namespace qps::explain::detail
