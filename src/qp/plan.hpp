// `qp create --to STATE` and `--pair`: the modify steps from RESET to the
// target state, each carrying the attributes that transition accepts, taken
// from what the user gave and, where the user gave nothing, from stated
// defaults.
#pragma once

#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "src/qp/attributes.hpp"

namespace qps::qp {

struct Step {
    ModifyRequest request;               // includes the target state
    std::vector<std::string> defaulted;  // attributes filled from defaults, e.g. "timeout 14"
};

// Defaults used when a required attribute was not given: pkey-index 0,
// access local_write|remote_write|remote_read, qkey 0x11111111, mtu the port's
// active MTU, PSNs 0, rd-atomic 1, min-rnr-timer 12 (0.64 ms), timeout 14
// (67 ms), retry-cnt 7, rnr-retry 7. dest-qpn and the address vector have no
// default. `port_active_mtu` is an ibv_mtu.
std::vector<Step> plan_steps(ibv_qp_type type, ibv_qp_state target, const ModifyRequest& given, ibv_mtu port_active_mtu);

// Only the attributes whose IBV_QP_* bit is in `mask` (IBV_QP_STATE kept).
ModifyRequest restrict_to(const ModifyRequest& r, std::uint32_t mask);
// The IBV_QP_* mask of the attributes present in r.
std::uint32_t mask_of(const ModifyRequest& r);

}  // namespace qps::qp
