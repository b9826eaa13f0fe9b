// The checks `doctor` runs on each port beyond the ones a test needs
// (local.hpp): the link against what the site expects (`--expect`), a
// routable RoCE v2 GID, and the active MTU explained from the netdev MTU.
// Pure functions of raw values; unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/health/finding.hpp"
#include "src/health/local.hpp"

namespace qps::health {

// `--expect rate=400,mtu=4096,width=4X,speed=NDR,loopback_gbps=10`.
struct Expect {
    std::optional<double> rate_gbps;      // nominal, as ibstat and sysfs `rate`
    std::optional<std::uint32_t> mtu;     // active MTU in bytes
    std::optional<std::string> width;     // "4X"
    std::optional<std::string> speed;     // "NDR"
    std::optional<double> loopback_gbps;  // --loopback-bw result
};
// UsageError naming the key or value and what is valid.
Expect parse_expect(std::string_view text);
inline constexpr std::string_view expect_keys = "rate, mtu, width, speed, loopback_gbps";

struct LinkFacts {
    std::string device;
    std::uint32_t port = 1;
    std::string width;                // "4X", "" when unknown
    std::string speed;                // "EDR", "" when unknown
    std::optional<double> rate_gbps;  // nominal
    std::uint32_t active_mtu = 0;     // bytes
    std::uint32_t max_mtu = 0;        // bytes
    bool ethernet = false;
    std::string netdev;               // RoCE: empty if unknown
};

// id "port.link": what the link runs at, against `expect` (fail when below).
Finding check_link(const LinkFacts& l, const Expect& expect);

// id "port.roce_gid": a RoCE port has a RoCE v2 GID with an IPv4 or global
// IPv6 address (routable); warn when it has only link-local ones.
Finding check_roce_gid(const std::string& device, std::uint32_t port, const std::vector<GidEntry>& gids,
                       const std::string& netdev);

// The largest RDMA MTU (bytes) a netdev MTU allows under `driver`'s header
// allowance, capped at the port's max MTU; 0 when not even 256 fits.
std::uint32_t rdma_mtu_for_netdev(std::uint32_t netdev_mtu, std::uint32_t max_mtu, const std::string& driver);

// id "port.mtu" (RoCE): the active MTU explained from the netdev MTU, and
// which netdev MTU gives the next larger RDMA MTU. Fail when `expect_mtu`
// is above the active MTU (with the `ip link set ... mtu` that fixes it).
Finding explain_roce_mtu(const LinkFacts& l, std::uint32_t netdev_mtu, const std::string& driver,
                         std::optional<std::uint32_t> expect_mtu);

}  // namespace qps::health
