// Checks a modify-QP request before the verb is called: the IB transition
// rules (which transitions exist, required and optional attributes per QP
// type) and the device and port (port exists, P_Key and GID indices point at
// valid entries, path MTU within the port's, rd-atomic values within the
// device's limits, a GRH on RoCE, controlled Q_Keys).
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/qp/attributes.hpp"
#include "src/qp/options.hpp"

namespace qps::qp {

struct Validation {
    std::vector<std::string> passed;    // what was checked and held
    std::vector<std::string> problems;  // each names the attribute, the value and what is valid
};

// What validate_modify checks, in the order it checks them: `qp modify`
// reports each as passed or failed, `explain errno 22 --verb modify_qp`
// lists them as what to check.
inline constexpr std::array<std::string_view, 7> modify_checks{{
    "the transition exists for the QP type, with every attribute it requires and none it forbids (IBA 10.3, the "
    "kernel's ib_modify_qp_is_ok)",
    "max-rd-atomic is at most the device's max_qp_init_rd_atom, max-dest-rd-atomic at most its max_qp_rd_atom",
    "the port exists on the device",
    "pkey-index points at a non-empty entry of the port's P_Key table",
    "on RoCE the address vector has a GRH; sgid-index is a valid GID entry of the port; dgid is not all zeros",
    "the path MTU is at most the port's active MTU",
    "the Q_Key does not have bit 31 set (a controlled Q_Key, for privileged users only)",
}};

Validation validate_modify(ibv_context* ctx, const ibv_qp_attr& current, ibv_qp_type type, const ModifyRequest& req);

// What an atomic posted by `qp post` needs, as the holder reads it before
// posting: the QP, its device, and the target QP when the holder has it too
// (a target elsewhere is checked by its own side: a refusal comes back as
// the completion's REM_INV_REQ_ERR or REM_ACCESS_ERR).
struct AtomicPostFacts {
    PostOp op = PostOp::fadd;
    std::uint32_t qpn = 0;
    ibv_qp_type type = IBV_QPT_RC;
    std::string device;
    int atomic_cap = IBV_ATOMIC_NONE;  // ibv_device_attr::atomic_cap
    ibv_qp_state state = IBV_QPS_RTS;
    std::uint8_t max_rd_atomic = 0;    // the QP's, as initiator (set on its way to RTS)
    std::uint64_t remote_addr = 0;
    struct Target {
        std::uint32_t qpn = 0;
        unsigned access = 0;  // its qp_access_flags
        std::uint8_t max_dest_rd_atomic = 0;
    };
    std::optional<Target> target;
};

// The first reason the atomic cannot be posted, as one line naming the
// value and what is valid; nullopt when there is none. In order: the QP's
// type (RC only), the device's atomic_cap (not NONE), the QP's
// max-rd-atomic (in RTS or SQD; before that the post itself is refused), the target QP's remote_atomic access and
// max-dest-rd-atomic, the remote address's alignment.
std::optional<std::string> atomic_post_problem(const AtomicPostFacts& facts);

}  // namespace qps::qp
