// The attributes of a modify-QP request as the user names them (one
// optional per `qp modify` flag), their conversion to ibv_qp_attr + mask,
// and the raw attribute set that ibv_query_qp returns, in JSON form for the
// holder protocol.
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <vector>

#include "src/json.hpp"

namespace qps::qp {

struct ModifyRequest {
    std::optional<ibv_qp_state> state, cur_state;
    std::optional<std::uint8_t> port;
    std::optional<std::uint16_t> pkey_index;
    std::optional<std::uint32_t> qkey;
    std::optional<unsigned> access;           // IBV_ACCESS_* mask
    std::optional<ibv_mtu> path_mtu;
    std::optional<std::uint32_t> dest_qpn, rq_psn, sq_psn;
    std::optional<std::uint8_t> max_rd_atomic, max_dest_rd_atomic;
    std::optional<std::uint8_t> min_rnr_timer, timeout, retry_cnt, rnr_retry;
    // address vector: any of these sets IBV_QP_AV
    std::optional<std::array<std::uint8_t, 16>> dgid;
    std::optional<std::uint16_t> dlid;
    std::optional<std::uint8_t> sl, sgid_index, hop_limit, traffic_class, static_rate;
    std::optional<std::uint32_t> flow_label;
    std::optional<ibv_mig_state> path_mig_state;

    bool has_av() const;
};

// A request as the command line parsed it, with what the parse noted of
// it (a duration turned into its code: "--qp-timeout 67ms → code 14
// (67.109 ms)"), which the report shows beside what was sent.
struct ParsedModify {
    ModifyRequest request;
    std::vector<std::string> notes;
};

// attr + mask for ibv_modify_qp. Address-vector fields not given keep the
// values in `current` (from ibv_query_qp), so a later --sl alone does not
// zero the GID; is_global is set when a dgid is present.
void to_verbs(const ModifyRequest& req, const ibv_qp_attr& current, ibv_qp_attr& attr, int& mask);

Json to_json(const ModifyRequest& req);
// Throws UsageError naming a bad member.
ModifyRequest modify_request_from_json(const Json& j);

// Everything ibv_query_qp returns, raw, as JSON (and back, for the client).
Json qp_attr_to_json(const ibv_qp_attr& attr, const ibv_qp_init_attr& init);
void qp_attr_from_json(const Json& j, ibv_qp_attr& attr, ibv_qp_init_attr& init);

// "fe80::1", full form, "::ffff:192.0.2.1" or an IPv4 address (its mapped
// GID) -> 16 bytes; nullopt if invalid.
std::optional<std::array<std::uint8_t, 16>> parse_gid(const std::string& text);

}  // namespace qps::qp
