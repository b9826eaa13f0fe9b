// The states of an NVMe controller as the kernel writes them in
// /sys/class/nvme/nvmeN/state (nvme_sysfs_show_state, drivers/nvme/host/
// core.c), with what each means for a fabrics controller (NVMe over RDMA):
// one table for doctor's finding and qp list's "serves".
#pragma once

#include <array>
#include <string_view>

namespace qps::decode {

struct NvmeStateEntry {
    std::string_view state;    // as sysfs writes it
    bool serving;              // I/O goes through
    std::string_view meaning;
};

inline constexpr std::array<NvmeStateEntry, 7> nvme_state_table{{
    {"live", true, "connected: I/O goes through"},
    {"new", false, "being set up: not connected yet"},
    {"resetting", false, "being reset (error recovery, or a reset asked for): its queues were torn down and I/O waits"},
    {"connecting", false,
     "lost its connection and reconnecting: I/O waits (or fails after fast_io_fail_tmo) while the kernel retries every "
     "reconnect_delay seconds, until ctrl_loss_tmo gives the controller up"},
    {"deleting", false, "being removed (ctrl_loss_tmo ran out, or a disconnect): its namespaces go away"},
    {"deleting (no IO)", false, "being removed, its queues already gone: outstanding I/O fails"},
    {"dead", false, "given up after a failure it could not recover from: its I/O fails"},
}};

// The entry of `state`, or nullptr for a state this qpscope does not know.
constexpr const NvmeStateEntry* find_nvme_state(std::string_view state)
{
    for (const auto& e : nvme_state_table)
        if (e.state == state)
            return &e;
    return nullptr;
}

}  // namespace qps::decode
