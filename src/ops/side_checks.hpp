// What one side of a two-sided test (ping-pong, bw) checks on its own host
// before any network step, and again after adopting the client's
// parameters: src/health/preflight.hpp's checks for the test's options.
#pragma once

#include <cstdint>
#include <vector>

#include "src/perf/link_common.hpp"

namespace qps::ops {

// What a side checks before it listens or connects, and again after
// adopting the client's parameters: src/health/preflight.hpp's checks for
// these options (the device file, the port, -x, --mtu, -c, and locked
// memory for `qps` QPs' buffers sized for the largest size), then the
// worker threads' CPUs (worker_cpus), which it returns. Throws the first
// failure; sets o.device to the device it checked ("" = the first) and
// keeps the device it opened in o.opened.
std::vector<int> preflight_side(perf::LinkOptions& o, std::uint32_t qps);

}  // namespace qps::ops
