#include "src/health/port_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <arpa/inet.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/resolve.hpp"
#include "src/util/text.hpp"

namespace qps::health {

using util::trim;

namespace {

double expect_number(std::string_view key, std::string_view value)
{
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !(v > 0))
        throw UsageError(fmt::format("--expect {}={}: not a positive number", key, value));
    return v;
}

// `value` in upper case when a table entry has that name, else UsageError
// naming the table's names.
template <class Table>
std::string expect_name(std::string_view key, std::string_view value, const Table& table)
{
    std::string upper(value);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    std::vector<std::string> names;
    for (const auto& entry : table)
        names.emplace_back(entry.name);
    if (std::find(names.begin(), names.end(), upper) == names.end())
        throw UsageError(fmt::format("--expect {}={}: valid are {}", key, value, fmt::join(names, ", ")));
    return upper;
}

std::string gbps_text(double g) { return std::floor(g) == g ? fmt::format("{:.0f}", g) : fmt::format("{:g}", g); }

}  // namespace

Expect parse_expect(std::string_view text)
{
    Expect e;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view item = trim(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw UsageError(fmt::format("--expect '{}': write KEY=VALUE (keys: {})", item, expect_keys));
        const std::string_view key = trim(item.substr(0, eq));
        const std::string_view value = trim(item.substr(eq + 1));
        if (key == "rate") {
            e.rate_gbps = expect_number(key, value);
        } else if (key == "loopback_gbps") {
            e.loopback_gbps = expect_number(key, value);
        } else if (key == "mtu") {
            std::uint32_t m = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), m);
            if (ec != std::errc() || end != value.data() + value.size() || !decode::mtu_from_bytes(m))
                throw UsageError(fmt::format("--expect mtu={}: valid are 256, 512, 1024, 2048, 4096", value));
            e.mtu = m;
        } else if (key == "width") {
            e.width = expect_name(key, value, decode::width_table);
        } else if (key == "speed") {
            e.speed = expect_name(key, value, decode::speed_table);
        } else {
            throw UsageError(fmt::format("--expect: unknown key '{}' (keys: {})", key, expect_keys));
        }
    }
    return e;
}

Finding check_link(const LinkFacts& l, const Expect& expect)
{
    Finding r;
    r.id = "port.link";
    r.device = l.device;
    r.port = l.port;
    const std::string rate = l.rate_gbps ? gbps_text(*l.rate_gbps) + " Gb/s" : "rate unknown";
    r.seen = {{"width", l.width.empty() ? "?" : l.width},
              {"speed", l.speed.empty() ? "?" : l.speed},
              {"rate_gbps", l.rate_gbps ? gbps_text(*l.rate_gbps) : "?"},
              {"active_mtu", std::to_string(l.active_mtu)},
              {"max_mtu", std::to_string(l.max_mtu)}};
    const std::string runs = fmt::format("{} port {} runs {} {} ({}), active MTU {}", l.device, l.port,
                                         l.width.empty() ? "?" : l.width, l.speed.empty() ? "?" : l.speed, rate,
                                         l.active_mtu);
    std::vector<std::string> below, fixes;
    if (expect.rate_gbps && (!l.rate_gbps || *l.rate_gbps + 1e-9 < *expect.rate_gbps)) {
        below.push_back(fmt::format("rate {} below the expected {} Gb/s", rate, gbps_text(*expect.rate_gbps)));
        fixes.push_back("a rate below the link's nominal one is a lane or speed that did not train: reseat or "
                        "replace the cable or transceiver, check the switch port (ibportstate, mlxlink)");
    }
    if (expect.width && l.width != *expect.width) {
        below.push_back(fmt::format("width {} instead of {}", l.width.empty() ? "?" : l.width, *expect.width));
        if (fixes.empty())
            fixes.push_back("a narrower width means lanes are down: reseat or replace the cable, check the "
                            "switch port");
    }
    if (expect.speed && l.speed != *expect.speed) {
        below.push_back(fmt::format("speed {} instead of {}", l.speed.empty() ? "?" : l.speed, *expect.speed));
        if (fixes.empty())
            fixes.push_back("the link trained at a lower speed: check the cable's rating and both ends' "
                            "supported speeds");
    }
    if (expect.mtu && l.active_mtu < *expect.mtu && !l.ethernet) {
        below.push_back(fmt::format("active MTU {} below the expected {}", l.active_mtu, *expect.mtu));
        fixes.push_back(fmt::format("the subnet manager sets the IB MTU: check the partition's MTU (opensm "
                                    "partitions.conf) and the switch's{}",
                                    l.max_mtu < *expect.mtu ? fmt::format("; this port's max is {}", l.max_mtu)
                                                            : std::string()));
    }
    if (below.empty()) {
        r.status = Status::ok;
        r.summary = runs;
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{}: {}", runs, fmt::join(below, "; "));
    r.why = "the site expects every port at this link setting (--expect); a degraded link halves or worse "
            "the bandwidth of every job that uses it";
    r.fix = fmt::format("{}", fmt::join(fixes, "; "));
    return r;
}

Finding check_roce_gid(const std::string& device, std::uint32_t port, const std::vector<host::GidEntry>& gids,
                       const std::string& netdev)
{
    Finding r;
    r.id = "port.roce_gid";
    r.device = device;
    r.port = port;
    std::vector<std::string> v2;
    const host::GidEntry* routable = nullptr;
    for (const auto& g : gids) {
        if (g.type != "RoCE v2")
            continue;
        v2.push_back(fmt::format("{} {}", g.index, g.ipv4.empty() ? g.gid : g.ipv4));
        if (!routable && !g.link_local)
            routable = &g;
    }
    r.seen = {{"roce_v2_gids", v2.empty() ? "none" : fmt::format("{}", fmt::join(v2, "; "))},
              {"netdev", netdev.empty() ? "?" : netdev}};
    if (routable) {
        r.status = Status::ok;
        r.summary = fmt::format("{} port {} has a routable RoCE v2 GID: index {} ({})", device, port,
                                routable->index, routable->ipv4.empty() ? routable->gid : routable->ipv4);
        return r;
    }
    r.status = Status::warn;
    r.summary = v2.empty() ? fmt::format("{} port {} has no RoCE v2 GID", device, port)
                           : fmt::format("{} port {} has RoCE v2 GIDs for link-local IPv6 only", device, port);
    r.why = "RoCE v2 GIDs come from the netdev's IP addresses; without an IPv4 or global IPv6 one, traffic "
            "cannot be routed beyond the local segment and rdma_cm cannot resolve the port by IP";
    r.fix = fmt::format("add an address to {}: ip addr add ADDR/LEN dev {}", netdev.empty() ? "the netdev" : netdev,
                        netdev.empty() ? "NETDEV" : netdev);
    return r;
}

decode::GidKind kind_of(const host::GidEntry& g)
{
    if (!g.ipv4.empty())
        return decode::GidKind::ipv4;
    return g.link_local ? decode::GidKind::ipv6_link_local : decode::GidKind::ipv6_global;
}

std::optional<Destination::Address> classify_address(const std::string& text)
{
    Destination::Address a;
    a.text = text;
    in_addr v4{};
    if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
        a.kind = decode::GidKind::ipv4;
        a.loopback = (ntohl(v4.s_addr) >> 24) == 127;
        return a;
    }
    const std::string bare = text.substr(0, text.find('%'));  // fe80::1%veth0
    in6_addr v6{};
    if (::inet_pton(AF_INET6, bare.c_str(), &v6) != 1)
        return std::nullopt;
    decode::GidBytes bytes{};
    std::copy(std::begin(v6.s6_addr), std::end(v6.s6_addr), bytes.begin());
    a.kind = decode::gid_kind(bytes);  // ::ffff:a.b.c.d is IPv4
    const decode::GidBytes ipv6_loopback{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    a.loopback = bytes == ipv6_loopback || (a.kind == decode::GidKind::ipv4 && bytes[12] == 127);
    return a;
}

Destination read_destination(const std::string& host, std::chrono::milliseconds timeout)
{
    Destination d;
    d.host = host;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    std::optional<net::AddrInfo> found;
    try {
        found.emplace(net::resolve(host, "", hints, timeout));
    } catch (const TimeoutError&) {
        throw;  // the resolver did not answer: this host's problem, named before any network step
    } catch (const net::Interrupted&) {
        throw;
    } catch (const std::exception&) {
        return d;  // an unknown name: connecting names it
    } catch (...) {
        return d;
    }
    for (const addrinfo* ai = found->get(); ai; ai = ai->ai_next) {
        char text[NI_MAXHOST] = {};
        if (::getnameinfo(ai->ai_addr, ai->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0)
            continue;
        if (auto a = classify_address(text);
            a && std::none_of(d.addresses.begin(), d.addresses.end(), [&](const auto& b) { return b.text == a->text; }))
            d.addresses.push_back(*a);
    }
    return d;
}

std::vector<decode::GidKind> gid_kinds_for(const Destination& d)
{
    using decode::GidKind;
    std::vector<GidKind> out;
    const auto add = [&](GidKind k) {
        if (std::find(out.begin(), out.end(), k) == out.end())
            out.push_back(k);
    };
    for (const auto& a : d.addresses) {
        add(a.kind);
        if (!a.loopback)
            continue;
        // The server is this host and picks its own GID: any kind can meet
        // it (even link-local to link-local on one segment); the family
        // given first, then the other routable one, then link-local.
        add(a.kind == GidKind::ipv4 ? GidKind::ipv6_global : GidKind::ipv4);
        add(GidKind::ipv6_link_local);
    }
    return out;
}

namespace {

std::string destination_text(const Destination& d)
{
    std::vector<std::string> parts;
    for (const auto& a : d.addresses)
        parts.push_back(fmt::format("{} {}", a.text, a.loopback ? "loopback" : decode::gid_kind_name(a.kind)));
    const std::string addresses = fmt::format("{}", fmt::join(parts, ", "));
    return d.addresses.size() == 1 && d.addresses.front().text == d.host ? addresses
                                                                          : fmt::format("{} ({})", d.host, addresses);
}

std::string gid_entry_text(const host::GidEntry& g)
{
    return fmt::format("index {} {} ({})", g.index, g.ipv4.empty() ? g.gid : g.ipv4, decode::gid_kind_name(kind_of(g)));
}

}  // namespace

Finding check_gid_kind(const std::string& device, std::uint32_t port, std::optional<std::uint32_t> gid_index,
                       const std::vector<host::GidEntry>& gids, std::optional<std::uint32_t> chosen,
                       const Destination& d, const std::string& netdev)
{
    Finding r;
    r.id = "port.gid_kind";
    r.device = device;
    r.port = port;
    const std::vector<decode::GidKind> kinds = gid_kinds_for(d);
    const auto source = chosen ? std::find_if(gids.begin(), gids.end(), [&](const host::GidEntry& g) { return g.index == *chosen; })
                               : gids.end();
    r.seen = {{"destination", d.addresses.empty() ? d.host : destination_text(d)}};
    if (kinds.empty() || source == gids.end()) {
        // Nothing to compare: the name does not resolve now (connecting says
        // so), or the port has no GID (port.gid says so).
        r.status = Status::skipped;
        r.summary = kinds.empty() ? fmt::format("destination {} did not resolve: nothing to compare the GID with", d.host)
                                  : fmt::format("{} port {} has no source GID to compare", device, port);
        return r;
    }
    std::vector<std::string_view> wanted;
    for (auto k : kinds)
        wanted.push_back(decode::gid_kind_name(k));
    r.seen.push_back({"source_gid", gid_entry_text(*source)});
    r.seen.push_back({"kinds_that_reach_it", fmt::format("{}", fmt::join(wanted, ", "))});
    const std::string where = fmt::format("{} port {}", device, port);
    if (std::find(kinds.begin(), kinds.end(), kind_of(*source)) != kinds.end()) {
        r.status = Status::ok;
        r.summary = fmt::format("source GID {} of {} reaches destination {}", gid_entry_text(*source), where,
                                destination_text(d));
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("source GID {} of {} cannot reach destination {}: {} {} {} GID", gid_entry_text(*source),
                            where, destination_text(d),
                            d.addresses.size() == 1 ? "that address needs" : "those addresses need",
                            wanted.front() == "IPv4" ? "an" : "a", fmt::join(wanted, " or "));
    r.why = "RoCE v2 carries the GIDs as the packets' IP source and destination: a link-local GID reaches only "
            "link-local peers, an IPv4-mapped one IPv4 peers, a global IPv6 one global IPv6 peers; the kernel "
            "would refuse the connection later (ibv_modify_qp to RTR: EINVAL, or no route)";
    const auto match = std::find_if(gids.begin(), gids.end(), [&](const host::GidEntry& g) {
        return g.type == "RoCE v2" && std::find(kinds.begin(), kinds.end(), kind_of(g)) != kinds.end();
    });
    const std::string nd = netdev.empty() ? "NETDEV" : netdev;
    if (match != gids.end()) {
        r.cause = gid_index ? Cause::option : Cause::host;
        r.fix = fmt::format("use -x {} ({}){}", match->index, gid_entry_text(*match),
                            gid_index ? ", or leave -x out and qpscope picks a GID that matches" : "");
    } else {
        r.fix = fmt::format("give {} {} {} address (ip addr add ADDR/LEN dev {}; its GID appears at once), or use a "
                            "device whose port has one (-d; qpscope ports lists each port's GIDs){}",
                            nd, wanted.front() == "IPv4" ? "an" : "a", wanted.front(), nd,
                            ", or give the peer's address of the GID's kind");
    }
    return r;
}

bool addressing_errno(const std::string& call, int err, bool ethernet)
{
    if (err == ENETUNREACH || err == EHOSTUNREACH || err == EADDRNOTAVAIL)
        return true;
    const bool resolves_gids = call.starts_with("ibv_create_ah") ||
                               (call.starts_with("ibv_modify_qp") && call.find("to state 2)") != std::string::npos);
    return ethernet && err == EINVAL && resolves_gids;
}

std::optional<Finding> loopback_not_connectable(const std::string& device, std::uint32_t port, int transport)
{
    Finding f = host::check_connect_transport(device, port, transport);
    if (!f.failed())
        return std::nullopt;
    f.id = "port.loopback";
    f.status = Status::skipped;
    f.summary = "not run: " + f.summary;
    return f;
}

Finding loopback_failure(const std::string& device, std::uint32_t port, const std::string& error,
                         const std::string& call, int err, bool ethernet, const Finding* roce_gid)
{
    Finding f;
    f.id = "port.loopback";
    f.device = device;
    f.port = port;
    f.status = Status::fail;
    f.seen = {{"error", error}};
    if (err != 0)
        f.seen.push_back({"errno", errno_name(err)});
    const std::string where = fmt::format("{} port {}", device, port);
    f.summary = fmt::format("loopback self-test on {} failed: {}", where, error);
    if (!addressing_errno(call, err, ethernet)) {
        f.why = "two QPs on the same port could not exchange a message: the device or its driver does not "
                "carry traffic, whatever the port state says";
        f.fix = "look at dmesg for the driver's errors; reload the driver (or for Soft-RoCE: rdma link delete "
                "and add the device again); a firmware reset for hardware NICs";
        return f;
    }
    const bool explained = roce_gid && roce_gid->status != Status::ok;
    if (explained)
        f.seen.push_back({"explained_by", roce_gid->id});
    f.why = fmt::format("the two QPs could not be addressed to each other ({} from {}): the port's GIDs give no "
                        "route between them, which is a matter of the netdev's IP addresses, not of the device or "
                        "its driver{}",
                        errno_name(err), call.empty() ? "the connection" : call,
                        explained ? fmt::format("; {} says why: {}", roce_gid->id, roce_gid->summary) : "");
    f.fix = explained && !roce_gid->fix.empty()
                ? roce_gid->fix + ", then run doctor again"
                : fmt::format("look at the port's GIDs (qpscope ports -d {}) and its netdev's addresses and routes "
                              "(ip addr, ip route)",
                              device);
    return f;
}

std::uint32_t rdma_mtu_for_netdev(std::uint32_t netdev_mtu, std::uint32_t max_mtu, const std::string& driver)
{
    const std::uint32_t allowance = host::roce_header_allowance(driver);
    std::uint32_t best = 0;
    for (std::uint32_t m = 256; m <= 4096; m *= 2)
        if (m + allowance <= netdev_mtu && m <= max_mtu)
            best = m;
    return best;
}

Finding explain_roce_mtu(const LinkFacts& l, std::uint32_t netdev_mtu, const std::string& driver,
                         std::optional<std::uint32_t> expect_mtu)
{
    Finding r;
    r.id = "port.mtu";
    r.device = l.device;
    r.port = l.port;
    const std::uint32_t allowance = host::roce_header_allowance(driver);
    r.seen = {{"netdev", l.netdev},
              {"netdev_mtu", std::to_string(netdev_mtu)},
              {"header_allowance", std::to_string(allowance)},
              {"active_mtu", std::to_string(l.active_mtu)},
              {"max_mtu", std::to_string(l.max_mtu)}};
    std::string why_active = fmt::format("netdev {} MTU {} leaves {} bytes after {}'s {} header bytes", l.netdev,
                                         netdev_mtu, netdev_mtu > allowance ? netdev_mtu - allowance : 0,
                                         driver.empty() ? "RoCE" : driver, allowance);
    std::string next;
    if (l.active_mtu < l.max_mtu && l.active_mtu < 4096)
        next = fmt::format("; netdev MTU {} would give {}", host::netdev_mtu_for(l.active_mtu * 2, driver),
                           l.active_mtu * 2);
    else
        next = "; that is the port's largest";
    r.summary = fmt::format("{} port {} active MTU {}: {}{}", l.device, l.port, l.active_mtu, why_active, next);
    if (expect_mtu && l.active_mtu < *expect_mtu) {
        r.status = Status::fail;
        r.why = "the RDMA MTU of RoCE follows the netdev MTU; a smaller one costs bandwidth and message rate "
                "(more packets and headers per message)";
        r.fix = *expect_mtu > l.max_mtu
                    ? fmt::format("the port's max MTU is {}: {} cannot be reached on this device", l.max_mtu,
                                  *expect_mtu)
                    : fmt::format("ip link set {} mtu {} (and the same or larger on the switch ports and the "
                                  "peers)",
                                  l.netdev.empty() ? "NETDEV" : l.netdev, host::netdev_mtu_for(*expect_mtu, driver));
        return r;
    }
    r.status = Status::ok;
    return r;
}

}  // namespace qps::health
