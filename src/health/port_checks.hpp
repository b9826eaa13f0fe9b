// The checks `doctor` runs on each port beyond the ones a test needs
// (local.hpp): the link against what the site expects (`--expect`), a
// routable RoCE v2 GID, and the active MTU explained from the netdev MTU.
// Pure functions of raw values; unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/gid.hpp"
#include "src/finding.hpp"
#include "src/host/checks.hpp"

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
Finding check_roce_gid(const std::string& device, std::uint32_t port, const std::vector<host::GidEntry>& gids,
                       const std::string& netdev);

// --- the source GID against the destination ---------------------------------

// The kind of a GID entry: IPv4-mapped, link-local IPv6 or global IPv6.
decode::GidKind kind_of(const host::GidEntry& g);

// The host a client was given, resolved as its connection will resolve it.
struct Destination {
    struct Address {
        std::string text;         // numeric, "192.0.2.1", "fe80::1%veth0"
        decode::GidKind kind = decode::GidKind::ipv4;
        bool loopback = false;    // 127.0.0.0/8 or ::1: the peer is this host
    };
    std::string host;                // as given
    std::vector<Address> addresses;  // in getaddrinfo's order; empty: not resolved now (connecting reports it)
};
// One numeric address classified; nullopt when `text` is not one.
std::optional<Destination::Address> classify_address(const std::string& text);
// The addresses of host within `timeout` (net/resolve.hpp): an unknown name
// gives none (connecting names it); a resolver that does not answer within
// the timeout is a TimeoutError naming it, before any network step.
Destination read_destination(const std::string& host, std::chrono::milliseconds timeout);

// The GID kinds that reach `d`, most wanted first: each address's own kind;
// a loopback address (the server is this host and chooses its own GID) any
// kind, its own family's first, then the other routable one, then
// link-local: a loopback destination says nothing about the RoCE path, and
// LinkResources::connect compares the two GIDs' families once the server's
// is known. Empty: no addresses.
std::vector<decode::GidKind> gid_kinds_for(const Destination& d);

// id "port.gid_kind": the source GID a client will use (`chosen`, an index
// into `gids`, the port's valid entries) against the destination it was
// given (RoCE only). Fails, before any network step, when the GID's kind is
// not one of gid_kinds_for(d): the kernel would refuse the connection later
// (ibv_modify_qp to RTR: EINVAL, or ENETUNREACH). The fix names a GID of the
// port that matches, or the address the netdev lacks. `gid_index`: -x, when
// given (a mismatch is then the option's fault if another GID matches).
Finding check_gid_kind(const std::string& device, std::uint32_t port, std::optional<std::uint32_t> gid_index,
                       const std::vector<host::GidEntry>& gids, std::optional<std::uint32_t> chosen,
                       const Destination& d, const std::string& netdev);

// --- doctor's loopback self-test: not run, or failed -----------------------------

// id "port.loopback", skipped, when the self-test cannot connect its QPs on
// a device of `transport` (check_connect_transport failed: iWARP): its
// summary, why and fix are that check's. nullopt: the test can run. A
// skip, not a failure: the host is not unhealthy for being iWARP.
std::optional<Finding> loopback_not_connectable(const std::string& device, std::uint32_t port, int transport);

// Whether a failed call of the self-test is about addresses, not the device:
// ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, or on RoCE an EINVAL from the
// step that resolves the GIDs (ibv_modify_qp to RTR, ibv_create_ah).
bool addressing_errno(const std::string& call, int err, bool ethernet);

// id "port.loopback" for a self-test that failed with `error` (`call` and
// `err`: the call that failed, err 0 when none did). An addressing errno
// points at the port's addresses and at `roce_gid` (the port's
// port.roce_gid finding, nullptr when none) when it is not ok; anything
// else at the device and its driver.
Finding loopback_failure(const std::string& device, std::uint32_t port, const std::string& error,
                         const std::string& call, int err, bool ethernet, const Finding* roce_gid);

// The largest RDMA MTU (bytes) a netdev MTU allows under `driver`'s header
// allowance, capped at the port's max MTU; 0 when not even 256 fits.
std::uint32_t rdma_mtu_for_netdev(std::uint32_t netdev_mtu, std::uint32_t max_mtu, const std::string& driver);

// id "port.mtu" (RoCE): the active MTU explained from the netdev MTU, and
// which netdev MTU gives the next larger RDMA MTU. Fail when `expect_mtu`
// is above the active MTU (with the `ip link set ... mtu` that fixes it).
Finding explain_roce_mtu(const LinkFacts& l, std::uint32_t netdev_mtu, const std::string& driver,
                         std::optional<std::uint32_t> expect_mtu);

}  // namespace qps::health
