// What `qpscope --version` reports besides our own version: the
// libibverbs this process runs with.
#pragma once

#include <string>

namespace qps::ops {

// "libibverbs.so.1.14.44.0" (rdma-core 44), or "unknown".
std::string libibverbs_version();

}  // namespace qps::ops
