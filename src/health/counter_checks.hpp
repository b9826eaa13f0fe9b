// doctor's port.counters: the port's error counters read twice, each one
// that rose named with how much, what it counts and what to check (the
// table is src/decode/counters.hpp). Pure; unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/health/finding.hpp"
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

}  // namespace qps::health
