// The local checks a command runs before any network step or wait: the
// device file, the device's transport (iWARP cannot be connected the way
// qpscope connects QPs), the port, the GID index, the MTU, locked memory and the CPU.
// The first failure stops the command with its own message and exit code
// (finding.hpp), on either side of a test, before a server listens or a
// client connects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/finding.hpp"
#include "src/health/port_checks.hpp"
#include "src/host/checks.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::health {

struct PreflightSpec {
    std::string device;                     // "" = the first
    std::uint32_t port = 1;
    // The QPs are to be connected (ibv_modify_qp to RTR and RTS): the
    // device's transport must allow that (check_connect_transport: not
    // iWARP) and the port must be ACTIVE. false: a QP that is not connected
    // needs neither.
    bool connects = true;
    // How: through rdma_cm (--cm: an iWARP device passes), and whether the
    // QPs are UD (none on iWARP). host/checks.hpp check_connect_transport.
    host::ConnectWith with;
    std::optional<std::uint32_t> gid_index; // -x
    std::optional<int> mtu;                 // --mtu (ibv_mtu)
    std::optional<int> cpu;                 // -c
    std::uint64_t memlock_bytes = 0;        // about to be registered; 0: no check
    std::string memlock_what = "the buffers";
    // A client's destination: the source GID must be of a kind that reaches
    // it (check_gid_kind); without -d, the first device whose port has such
    // a GID is chosen.
    std::optional<Destination> destination;
    // The device this side's first checks opened: checked again (after a
    // server adopts the client's parameters) through the same context, not
    // opened a second time, when it is the device the checks resolve.
    verbs::SharedDevice opened;
};

// Runs the checks in order and throws the first failure. Returns the
// findings (all ok), the resolved device name and the device opened (once:
// the test's QPs are made on this context).
struct Preflight {
    std::string device;
    verbs::SharedDevice opened;
    std::vector<Finding> findings;
    std::vector<decode::GidKind> gid_kinds;  // gid_kinds_for(destination), for the GID choice
};
Preflight preflight(const PreflightSpec& spec);

// Facts of a port as the checks take them, from a snapshot.
std::string port_netdev(const std::string& device, const verbs::PortSnapshot& p);
// The first IPv4 address of `netdev`, else its first IPv6 one that is not
// link-local (rdma_cm is given no scope); "" when it has none.
std::string netdev_address(const std::string& netdev);
std::string netdev_operstate(const std::string& netdev);  // sysfs operstate, "" if unknown
host::PortState port_state_of(const std::string& device, const verbs::PortSnapshot& p);
std::vector<host::GidEntry> gid_entries(const verbs::PortSnapshot& p);

}  // namespace qps::health
