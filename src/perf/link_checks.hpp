// What a two-sided test checks on the opened device before any network
// step, beyond the host's preflight: an iWARP device connected by hand,
// atomics on a device without them, a P_Key index the port's table lacks.
// Each is a UsageError naming the device and what is valid.
#pragma once

#include <cstdint>

#include "src/perf/link_common.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::perf {

// UsageError when the device is an iWARP one and the QPs would connect by
// hand: iWARP QPs connect only through rdma_cm (--cm). Each check looks at
// the device the side's preflight opened (side.opened; none: no check).
void check_iwarp(const LinkOptions& o, const LinkSide& side);
// UsageError when --op fadd|cas and the device does no atomics
// (atomic_cap ATOMIC_NONE), naming it.
void check_atomic_cap(const LinkOptions& o, const LinkSide& side);
// UsageError when --pkey-index is past the port's P_Key table or names an
// empty entry, naming the table.
void check_pkey_index(const LinkOptions& o, const LinkSide& side);
// The same for any opened device's port (the mesh's ranks).
void check_pkey_index(const verbs::SharedDevice& device, std::uint8_t port, std::uint16_t index);

}  // namespace qps::perf
