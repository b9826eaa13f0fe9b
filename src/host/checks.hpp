// The checks of this host alone, each a pure function of raw values (unit-
// tested) beside the reader that gathers those values here. `doctor` runs
// them all; ping-pong, bw and qp create run the ones their options touch
// before any network step (preflight.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/error.hpp"
#include "src/finding.hpp"

namespace qps::host {

// The first line of a (sysfs) file without its newline; "" when unreadable.
std::string first_line_of(const std::string& path);

// --- the device file (/dev/infiniband/uverbsN) -----------------------------

struct DeviceFile {
    std::string path;
    bool exists = false;
    unsigned mode = 0;               // permission bits (07777)
    std::string owner, group;        // names (or numbers)
    bool usable = false;             // this process may open it read-write
    std::string user;                // this process's user name
    bool user_in_group = false;      // the file's group is one of ours
};

DeviceFile read_device_file(const std::string& path);
// id "device.access". `device` names the RDMA device the file belongs to.
Finding check_device_file(const std::string& device, const DeviceFile& f);

// --- processes holding a device ----------------------------------------------

struct DeviceUser {
    std::uint32_t pid = 0;
    std::string comm;
};
struct DeviceUsers {
    std::vector<DeviceUser> users;
    bool complete = true;  // false: some /proc/PID/fd could not be read (other users' processes)
};
// The processes with `path` (/dev/infiniband/uverbsN) open, from /proc/*/fd.
DeviceUsers read_device_users(const std::string& path, const std::string& proc = "/proc");
// id "device.users" (always ok: a fact that explains a hung `rdma link
// delete` or module unload).
Finding check_device_users(const std::string& device, const std::string& path, const DeviceUsers& u);

// --- locked memory -------------------------------------------------------------

struct Memlock {
    bool unlimited = false;          // soft limit RLIM_INFINITY
    std::uint64_t soft_bytes = 0, hard_bytes = 0;
    bool hard_unlimited = false;
    bool cap_ipc_lock = false;       // CAP_IPC_LOCK: the limit does not apply
};

Memlock read_memlock();
// id "memlock": `needed` bytes about to be registered, `what` names them
// ("the test buffers").
Finding check_memlock(const Memlock& m, std::uint64_t needed, const std::string& what);

// --- CPU -------------------------------------------------------------------

// The CPUs this process may run on (sched_getaffinity).
std::vector<int> allowed_cpus();
// id "cpu": `cpu`, the thing the user gave (-c, or a CPU of bw's --cpus),
// marked in the summary (src/error.hpp's given): the command line spells it.
Finding check_cpu(int cpu, const std::vector<int>& allowed, Given what = Given::cpu);
// "0-3,6" from a sorted list.
std::string cpu_list_text(const std::vector<int>& cpus);

// --- a port ----------------------------------------------------------------

struct PortState {
    std::string device;
    std::uint32_t port = 1;
    int state = 0;          // ibv_port_state
    int phys_state = 0;     // IB PortPhysicalState
    bool ethernet = false;  // link layer
    std::string netdev;     // RoCE: the netdev of the GIDs, empty if unknown
    std::string netdev_operstate;  // "up", "down", ... (sysfs operstate)
};

// id "port.state".
Finding check_port_state(const PortState& p);

// id "device.transport": whether qpscope can connect QPs of `device` (its
// ibv_device transport_type `transport`, named with `port`) the way it does
// everywhere: ibv_modify_qp to RTR and RTS with the peer's address
// (ping-pong, bw, qpscope-mesh, qp create --pair or --to rtr/rts, doctor's
// loopback). On a transport of decode::cm_only_transport_table (iWARP:
// rdma_cm connects its QPs) it passes with `cm` (--cm: rdma_cm connects
// them), and fails, before any network step, without it (naming --cm) or
// for UD QPs (`ud`: path, --transport ud), which such a transport has not.
struct ConnectWith {
    bool cm = false;   // --cm
    bool ud = false;   // the QPs are UD
    bool xrc = false;  // --transport xrc: the device must have XRC (check_xrc, before the transport)
};
Finding check_connect_transport(const std::string& device, std::uint32_t port, int transport, ConnectWith with = {});
// device.xrc: --transport xrc on a device whose device_cap_flags lacks XRC
// (bit 20; rxe and siw) fails, named as decode::no_xrc_text names it.
Finding check_xrc(const std::string& device, std::uint64_t device_cap_flags);

struct GidEntry {
    std::uint32_t index = 0;
    std::string gid;        // text
    std::string type;       // "IB/RoCE v1", "RoCE v2"
    std::string netdev;
    std::string ipv4;          // the IPv4 address of an IPv4-mapped GID, else ""
    bool link_local = false;   // fe80::/10
};

// id "port.gid": `wanted` from -x/--gid-index (nullopt: any usable GID).
// `table_len` is the size of the port's GID table.
Finding check_gid_index(const std::string& device, std::uint32_t port, std::optional<std::uint32_t> wanted,
                        const std::vector<GidEntry>& valid, std::uint32_t table_len, bool ethernet);

// id "port.mtu": `wanted` (ibv_mtu) from --mtu against the active MTU.
Finding check_mtu(const std::string& device, std::uint32_t port, int wanted, int active, int max);

// RoCE: the header bytes a driver takes from the netdev MTU before it picks
// the largest RDMA MTU that fits: 80 for rxe (rxe_param.h), 96 for the
// kernel's generic RoCE rule (iboe_get_mtu in include/rdma/ib_addr.h).
std::uint32_t roce_header_allowance(const std::string& driver);
// The netdev MTU that gives `rdma_mtu_bytes`.
std::uint32_t netdev_mtu_for(std::uint32_t rdma_mtu_bytes, const std::string& driver);

}  // namespace qps::host
