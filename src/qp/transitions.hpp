// The InfiniBand modify-QP transition rules as data: for every (current
// state, next state) pair that exists, per QP type, the attributes that must
// and may come with the move. Follows the IBA's QP state-transition tables as
// the Linux kernel encodes them (drivers/infiniband/core/verbs.c,
// qp_state_table / ib_modify_qp_is_ok), which drivers such as rxe and mlx5
// apply to every ibv_modify_qp:
//
//   - any state -> RESET, and any state but RESET -> ERR, with no attributes;
//     RESET -> RESET is allowed, RESET -> ERR is not;
//   - a QP stays in INIT, RTS or SQD by "moving" to the same state with only
//     optional attributes (RTR -> RTR does not exist);
//   - SQE is entered by the device after a send error on an unreliable QP
//     (UC, UD), never by modify; it is left for RTS, RESET or ERR. RC and XRC
//     QPs go to ERR instead, so SQE -> RTS does not exist for them here (the
//     kernel's table marks the pair valid for every type without attributes);
//   - cur-state (IBV_QP_CUR_STATE) is only accepted on the way to RTS from
//     RTR, RTS, SQD or SQE;
//   - IBV_QP_CAP (resizing a QP) appears in no transition: the generic rules
//     refuse it everywhere;
//   - DRIVER QPs (e.g. mlx5 DC) follow their provider's own rules: none here.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <span>
#include <string>
#include <vector>

namespace qps::qp {

// A QP type's bit in a rule's type set (1 << ibv_qp_type, as the device's
// supported_qpts masks count); 0 for DRIVER, which no rule covers.
constexpr std::uint32_t type_bit(ibv_qp_type t)
{
    return static_cast<unsigned>(t) < 32 ? 1u << t : 0;
}

struct TransitionRule {
    ibv_qp_state cur;
    ibv_qp_state next;
    std::uint32_t types;     // OR of type_bit()
    std::uint32_t required;  // ibv_qp_attr_mask bits, IBV_QP_STATE excluded
    std::uint32_t optional;
};

// Every rule; no (cur, next, type) is covered twice.
std::span<const TransitionRule> transition_rules();

struct TransitionCheck {
    bool exists = false;          // the transition exists for this QP type
    std::uint32_t missing = 0;    // required but not in the mask
    std::uint32_t forbidden = 0;  // in the mask but neither required nor optional
    std::uint32_t required = 0;
    std::uint32_t optional = 0;
    bool ok() const { return exists && missing == 0 && forbidden == 0; }
};

// Checks an ibv_modify_qp mask against the rules. IBV_QP_STATE in the mask
// is ignored (it is what asks for the move). When the transition does not
// exist, every mask field is 0.
TransitionCheck check_transition(ibv_qp_state cur, ibv_qp_state next, ibv_qp_type type,
                                 std::uint32_t mask);

// The states `cur` can move to: onward states in enum order, then RESET and
// ERR ("RTS, RESET, ERR" from RTR). Empty for DRIVER and UNKNOWN.
std::vector<ibv_qp_state> next_states(ibv_qp_state cur, ibv_qp_type type);

// One line for the user, e.g.
//   "INIT→RTR on RC needs dest-qpn, rq-psn (missing); valid attributes:
//    required address vector (dlid/dgid/sl/...), mtu, ...; optional ..."
//   "RESET→RTS does not exist for RC; valid transitions from RESET are: INIT, RESET"
std::string explain(const TransitionCheck& check, ibv_qp_state cur, ibv_qp_state next,
                    ibv_qp_type type);

}  // namespace qps::qp
