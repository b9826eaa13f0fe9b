// Checks a modify-QP request before the verb is called: the IB transition
// rules (which transitions exist, required and optional attributes per QP
// type) and the device and port (port exists, P_Key and GID indices point at
// valid entries, path MTU within the port's, rd-atomic values within the
// device's limits, a GRH on RoCE, controlled Q_Keys).
#pragma once

#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "src/qp/attributes.hpp"

namespace qps::qp {

struct Validation {
    std::vector<std::string> passed;    // what was checked and held
    std::vector<std::string> problems;  // each names the attribute, the value and what is valid
};

Validation validate_modify(ibv_context* ctx, const ibv_qp_attr& current, ibv_qp_type type, const ModifyRequest& req);

}  // namespace qps::qp
