// `qpscope watch`'s comparison of the host's devices between two looks:
// devices added, removed or renamed (by RDMA netlink's index), each port's
// netdev attached, detached or renamed, and each port's state, GID entries,
// error counters and packet rate. Pure; called by HostWatch::next
// (records.hpp), tested through it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/watch/records.hpp"

namespace qps::watch {

// Netdevs renamed between two looks, old name -> new name (the same ifindex).
using NetdevRenames = std::map<std::string, std::string>;

// Appends the records of what changed on the devices between `before`
// (with `last_links`, RDMA netlink's devices and ports of the last look
// that read them) and `look`, `elapsed_s` apart.
void compare_devices(const report::PortsReport& before, const HostLook& look,
                     const std::optional<std::vector<kernel::RdmaLink>>& last_links, double elapsed_s,
                     const std::string& ts, std::vector<WatchRecord>& out);

}  // namespace qps::watch
