// Limits the device does not report but that decide whether a QP is
// accepted, found by asking: create a throw-away QP with a value and see.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <string>

namespace qps::verbs {

struct ProbeResult {
    bool ok = false;
    std::uint32_t value = 0;  // when ok
    std::string error;        // when not ok: which call failed and why
};

// The largest max_inline_data an RC QP is granted (binary search over
// ibv_create_qp, up to 64 KiB). Everything it creates is destroyed.
ProbeResult probe_max_inline(ibv_context* ctx);

}  // namespace qps::verbs
