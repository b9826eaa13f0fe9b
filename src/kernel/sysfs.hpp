// What the kernel publishes under /sys/class/infiniband that verbs do not:
// port counters (counters/ and hw_counters/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qps::kernel {

struct Counter {
    std::string name;
    std::optional<std::uint64_t> value;
    std::string error;  // why value is missing
};

struct CounterSet {
    bool present = false;          // the directory exists
    std::vector<Counter> counters; // sorted by name
};

// Reads every counter file in /sys/class/infiniband/DEV/ports/PORT/SUBDIR.
// `root` is replaceable for tests.
CounterSet read_port_counters(const std::string& device, std::uint32_t port, const std::string& subdir,
                              const std::string& root = "/sys/class/infiniband");
// One counter file of that directory (nullopt: absent or unreadable).
std::optional<std::uint64_t> read_port_counter(const std::string& device, std::uint32_t port,
                                               const std::string& subdir, const std::string& name,
                                               const std::string& root = "/sys/class/infiniband");

// A port's packets, each way: rxe's hw_counters sent_pkts and rcvd_pkts,
// else the standard counters port_xmit_packets and port_rcv_packets
// (nullopt: neither). On RoCE these count the RoCE packets.
struct PacketCounts {
    std::optional<std::uint64_t> sent, received;
};
PacketCounts packet_counts(const CounterSet& hw_counters, const CounterSet& counters);
PacketCounts read_packet_counts(const std::string& device, std::uint32_t port,
                                const std::string& root = "/sys/class/infiniband");
// What `after` counted since `before` (nullopt where either is unknown or
// the counter went down: reset).
PacketCounts packets_since(const PacketCounts& before, const PacketCounts& after);

// How often a port's link went down: the port's link_downed counter
// (hw_counters, else counters; rxe counts its netdev going down there), and
// for RoCE its netdev (gid_attrs/ndevs/0; "" when none) with the carrier's
// changes (/sys/class/net/DEV/carrier_changes). nullopt: unknown.
struct LinkState {
    std::string netdev;
    std::optional<std::uint64_t> carrier_changes;
    std::optional<std::uint64_t> link_downed;
};
LinkState read_link_state(const std::string& device, std::uint32_t port, const std::string& root = "/sys/class/infiniband",
                          const std::string& net_root = "/sys/class/net");

// The CPUs near the device (its PCI function's local_cpulist: the NUMA
// node's); empty when sysfs does not say (Soft-RoCE has no PCI device).
std::vector<int> device_local_cpus(const std::string& device, const std::string& root = "/sys/class/infiniband");

// A kernel CPU list ("0-3,8,10-11\n"); nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

// Parses the text of one counter file ("1234\n"); nullopt when malformed.
std::optional<std::uint64_t> parse_counter(const std::string& text);

}  // namespace qps::kernel
