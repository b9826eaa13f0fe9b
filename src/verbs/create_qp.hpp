// `qp create`: the request, its check against the device's limits, and,
// when the device still refuses, finding which cap it refused and the
// largest value it accepts.
#pragma once

#include <cstdint>
#include <optional>
#include <infiniband/verbs.h>
#include <string>

#include "src/json.hpp"
#include "src/verbs/objects.hpp"

namespace qps::verbs {

struct CreateRequest {
    std::string device;  // empty: the first device
    std::uint8_t port = 1;
    ibv_qp_type type = IBV_QPT_RC;
    std::uint32_t send_wr = 16, recv_wr = 16, send_sge = 1, recv_sge = 1, max_inline = 0;
    std::uint32_t cq_depth = 0;  // 0: send_wr + recv_wr
    bool sq_sig_all = true;
    std::uint32_t buffer_size = 64 * 1024;  // registered buffer for `qp post`
    std::optional<std::uint32_t> srq;       // the holder's SRQ it takes its receives from
    std::string xrcd;                        // xrc-recv: the XRC domain's file (qp xrcd open)
};

Json to_json(const CreateRequest& c);
// UsageError for a type qpscope does not create, or XRC options that do not
// fit the type (check_xrc_options).
CreateRequest create_request_from_json(const Json& j);
// xrc-recv lives in an XRC domain (--xrcd FILE) and has no receive queue of
// its own nor an SRQ of ours; --xrcd belongs to xrc-recv only; xrc-send has
// no receive side (no --srq). UsageError naming the option and the type.
void check_xrc_options(const CreateRequest& c);

// The request as the one creation path takes it (verbs/objects.hpp), on one CQ for both queues.
QpSpec qp_spec(const CreateRequest& c, ibv_cq* cq);

// Throws UsageError naming the first cap above the device's limits.
void check_create_against_device(ibv_context* ctx, const std::string& device, const CreateRequest& c);

// Called after ibv_create_qp_ex failed with `err`: retries with one cap at a
// time lowered to find the refused one and the largest accepted value, then
// throws an error naming them (or the plain errno when no cap explains it).
[[noreturn]] void explain_create_failure(ibv_pd* pd, ibv_cq* cq, const std::string& device, const CreateRequest& c,
                                         int err);

}  // namespace qps::verbs
