// Checks a modify-QP request before the verb is called: the IB transition
// rules (which transitions exist, required and optional attributes per QP
// type) and the device and port (port exists, P_Key and GID indices point at
// valid entries, path MTU within the port's, rd-atomic values within the
// device's limits, a GRH on RoCE, controlled Q_Keys).
#pragma once

#include <array>
#include <infiniband/verbs.h>
#include <string>
#include <string_view>
#include <vector>

#include "src/qp/attributes.hpp"

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

}  // namespace qps::qp
