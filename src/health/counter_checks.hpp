// doctor's port.counters: the port's error counters read twice, each one
// that rose named with how much, what it counts and what to check (the
// table is src/decode/counters.hpp). Pure; unit-tested.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <string>
#include <vector>

#include "src/finding.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/kernel/sysfs.hpp"

namespace qps::health {

// One finding per table counter of `subdir` ("counters" or "hw_counters")
// that rose (fail, warn or, for congestion signalling, ok with the rise
// said) or went down (warn: reset); else one ok finding saying how many
// counters were read. A directory the driver does not have: one skipped
// finding.
std::vector<Finding> rising_counter_findings(const std::string& device, std::uint32_t port,
                                             const kernel::CounterSet& before, const kernel::CounterSet& after,
                                             const std::string& subdir, double interval_s);

// The drivers whose RDMA device implements counter binding (ib_device_ops
// counter_bind_qp in the kernel: mlx5_ib, ionic), by their PCI driver's
// name. No other device ever has a per-QP counter.
inline constexpr std::array<std::string_view, 2> qp_counter_drivers{"mlx5_core", "ionic"};

// id "port.qp_counters": the per-QP counters (`rdma statistic qp`) of one
// port read twice: skipped with "not supported by this driver" for the
// others, ok when none is bound (with how to bind them), warn per error
// counter that rose, naming the counter's QPs.
std::vector<Finding> qp_counter_findings(const std::string& device, std::uint32_t port, const std::string& driver,
                                         const std::vector<kernel::QpCounter>& before,
                                         const std::vector<kernel::QpCounter>& after, double interval_s);

}  // namespace qps::health
