// Device and port discovery: everything libibverbs and sysfs say about the
// host's RDMA devices, as raw values. Decoding happens in src/report/.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/kernel/sysfs.hpp"
#include "src/verbs/handles.hpp"
#include "src/verbs/probe.hpp"

namespace qps::verbs {

struct GidRow {
    std::uint32_t index = 0;
    ibv_gid_entry entry{};     // valid when err == 0
    std::string netdev;        // from entry.ndev_ifindex, empty if none
    int err = 0;               // errno of a failed query (ENODATA = empty entry)
};

struct PkeyRow {
    std::uint16_t index = 0;
    std::uint16_t pkey = 0;    // host byte order
};

struct PortSnapshot {
    std::uint32_t port_num = 0;
    ibv_port_attr attr{};
    std::uint32_t active_speed_ex = 0;  // 0 when the library has no such field
    std::vector<GidRow> gids;            // queried entries that are valid or failed
    std::uint32_t gid_empty = 0;         // entries that hold no GID
    std::vector<PkeyRow> pkeys;          // non-zero entries
    std::vector<std::string> pkey_errors;
    kernel::CounterSet counters;         // sysfs counters/
    kernel::CounterSet hw_counters;      // sysfs hw_counters/
};

struct DeviceSnapshot {
    std::string name;        // e.g. "rxe0"
    std::string uverbs;      // e.g. "uverbs0"
    int node_type = 0;
    int transport = 0;
    ibv_device_attr_ex attr{};
    bool attr_ex = false;    // attr's extended part was filled
    int num_comp_vectors = 0;
    ProbeResult max_inline_rc;  // probed: the device attributes do not say
    std::vector<PortSnapshot> ports;
};

struct Filter {
    std::string device;                   // empty: all
    std::optional<std::uint32_t> port;    // empty: all
};

// How much to read: everything, or what changes over time (device and port
// attributes and the sysfs counters; no GID/P_Key tables, no inline probe,
// which creates QPs) for repeated sampling (`ports --watch`).
// `tables`: the GID and P_Key tables but no inline probe (the local checks).
enum class Detail { full, tables, counters };

// A device as libibverbs lists it, without opening it.
struct ListedDevice {
    std::string name;    // "rxe0"
    std::string uverbs;  // "uverbs0": /dev/infiniband/uverbs0
};

// The host's devices, in libibverbs' order. OperationError (with what to
// load or create) when there is none.
std::vector<ListedDevice> list_devices();
// The device `name` stands for ("" = the first), or UsageError naming the
// devices that exist.
ListedDevice resolve_device(const std::string& name);
struct OpenDevice {
    std::string name, uverbs;
    Context ctx;
};
// Opens the device `name` stands for ("" = the first). When it cannot be
// opened, the error names the device file, its mode and owner, and the fix.
OpenDevice open_device(const std::string& name);
// The device's index in the kernel (ibv_get_device_index: what RDMA netlink
// names it by). libibverbs keeps the name it first read for the life of
// the process, so a device renamed since (`rdma dev set`) is found by this
// index under its new name; nullopt when the kernel gives none.
std::optional<std::uint32_t> kernel_index(const OpenDevice& device);
// One opened device that every QP of a side shares (`-d` opened once, not
// once per QP, as rdma-core's rc_pingpong passes its one context down).
using SharedDevice = std::shared_ptr<const OpenDevice>;
SharedDevice open_shared_device(const std::string& name);

// What to do when a host has no RDMA device.
std::string no_device_message();

// The error for a device name that is not on this host, with the closest
// one: "unknown device 'rxe9': did you mean 'rxe0'? devices on this host are rxe0".
std::string unknown_device_message(std::string_view name, const std::vector<std::string>& names);

// Opens every (filtered) device and reads it. Throws UsageError for an
// unknown device or port (naming what exists), OperationError when the
// host has no RDMA device, SystemError when a query fails.
std::vector<DeviceSnapshot> snapshot_devices(const Filter& filter, Detail detail = Detail::full);
// Reads a device through its opened context (no second ibv_open_device):
// one port, or all of them.
DeviceSnapshot snapshot_device(const OpenDevice& device, std::optional<std::uint32_t> port,
                               Detail detail = Detail::full);

}  // namespace qps::verbs
