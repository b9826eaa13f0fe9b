// What one side of a two-sided test (ping-pong, bw) checks on its own host
// before any network step, and again after adopting the client's
// parameters: src/health/preflight.hpp's checks for the test's options.
#pragma once

#include <cstdint>
#include <vector>

#include "src/perf/link_common.hpp"

namespace qps::perf {

// The local checks (src/health/preflight.hpp) for these options, before any
// network step: the device file, the port, -x, --mtu, -c, and locked memory
// for `qps` QPs' buffers sized for `largest`. Throws the first failure; sets
// o.device to the device it checked ("" = the first).
void check_local(LinkOptions& o, std::uint32_t largest, std::uint32_t qps);

// check_local for the options' largest size and `qps` QPs, then the
// worker threads' CPUs (worker_cpus): what a side checks before it
// listens or connects, and again after adopting the client's parameters.
std::vector<int> check_side(LinkOptions& o, std::uint32_t qps);

}  // namespace qps::perf
