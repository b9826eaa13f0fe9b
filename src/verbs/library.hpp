#pragma once

#include <string>

namespace qps::verbs {

// The libibverbs this process runs with, as its resolved file name
// (e.g. "libibverbs.so.1.14.44.0": rdma-core 44), or "unknown".
std::string libibverbs_version();

}  // namespace qps::verbs
