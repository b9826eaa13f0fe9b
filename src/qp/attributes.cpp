#include "src/qp/attributes.hpp"

#include <arpa/inet.h>
#include <cstring>
#include <fmt/format.h>

#include "src/decode/gid.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/util/json_text.hpp"

namespace qps::qp {

bool ModifyRequest::has_av() const
{
    return dgid || dlid || sl || sgid_index || hop_limit || traffic_class || static_rate || flow_label;
}

void to_verbs(const ModifyRequest& r, const ibv_qp_attr& current, ibv_qp_attr& a, int& mask)
{
    a = ibv_qp_attr{};
    mask = 0;
    auto set = [&mask](const auto& opt, auto& field, int bit) {
        if (opt) {
            field = static_cast<std::remove_reference_t<decltype(field)>>(*opt);
            mask |= bit;
        }
    };
    set(r.state, a.qp_state, IBV_QP_STATE);
    set(r.cur_state, a.cur_qp_state, IBV_QP_CUR_STATE);
    set(r.port, a.port_num, IBV_QP_PORT);
    set(r.pkey_index, a.pkey_index, IBV_QP_PKEY_INDEX);
    set(r.qkey, a.qkey, IBV_QP_QKEY);
    set(r.access, a.qp_access_flags, IBV_QP_ACCESS_FLAGS);
    set(r.path_mtu, a.path_mtu, IBV_QP_PATH_MTU);
    set(r.dest_qpn, a.dest_qp_num, IBV_QP_DEST_QPN);
    set(r.rq_psn, a.rq_psn, IBV_QP_RQ_PSN);
    set(r.sq_psn, a.sq_psn, IBV_QP_SQ_PSN);
    set(r.max_rd_atomic, a.max_rd_atomic, IBV_QP_MAX_QP_RD_ATOMIC);
    set(r.max_dest_rd_atomic, a.max_dest_rd_atomic, IBV_QP_MAX_DEST_RD_ATOMIC);
    set(r.min_rnr_timer, a.min_rnr_timer, IBV_QP_MIN_RNR_TIMER);
    set(r.timeout, a.timeout, IBV_QP_TIMEOUT);
    set(r.retry_cnt, a.retry_cnt, IBV_QP_RETRY_CNT);
    set(r.rnr_retry, a.rnr_retry, IBV_QP_RNR_RETRY);
    set(r.path_mig_state, a.path_mig_state, IBV_QP_PATH_MIG_STATE);
    if (r.has_av()) {
        a.ah_attr = current.ah_attr;
        ibv_ah_attr& ah = a.ah_attr;
        if (r.dgid) {
            std::memcpy(ah.grh.dgid.raw, r.dgid->data(), 16);
            ah.is_global = 1;
        }
        if (r.dlid)
            ah.dlid = *r.dlid;
        if (r.sl)
            ah.sl = *r.sl;
        if (r.sgid_index)
            ah.grh.sgid_index = *r.sgid_index;
        if (r.hop_limit)
            ah.grh.hop_limit = *r.hop_limit;
        if (r.traffic_class)
            ah.grh.traffic_class = *r.traffic_class;
        if (r.flow_label)
            ah.grh.flow_label = *r.flow_label;
        if (r.static_rate)
            ah.static_rate = *r.static_rate;
        if (r.port)
            ah.port_num = *r.port;
        else if (ah.port_num == 0)
            ah.port_num = current.port_num;
        mask |= IBV_QP_AV;
    }
}

namespace {

// The canonical text form (decode::format_gid), whatever form was typed.
std::string gid_text(const std::uint8_t* raw)
{
    decode::GidBytes g{};
    std::memcpy(g.data(), raw, g.size());
    return decode::format_gid(g);
}

// Reads an optional whole-number member into `out`, within [min, max].
template <class T>
void get(const Json& j, const char* key, std::optional<T>& out, std::uint64_t max, std::uint64_t min = 0)
{
    if (!j.contains(key))
        return;
    const Json& v = j.at(key);
    const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    if (!whole || v.get<std::uint64_t>() > max || v.get<std::uint64_t>() < min)
        throw UsageError(fmt::format("{}: '{}' is not a whole number in {}..{}", key, util::json_text(v), min, max));
    out = static_cast<T>(v.get<std::uint64_t>());
}

}  // namespace

std::optional<std::array<std::uint8_t, 16>> parse_gid(const std::string& text)
{
    std::array<std::uint8_t, 16> g{};
    if (::inet_pton(AF_INET6, text.c_str(), g.data()) == 1)
        return g;
    in_addr v4{};
    if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {  // an IPv4 address: its mapped GID
        g[10] = g[11] = 0xff;
        std::memcpy(&g[12], &v4, 4);
        return g;
    }
    return std::nullopt;
}

Json to_json(const ModifyRequest& r)
{
    Json j = Json::object();
    auto put = [&j](const char* key, const auto& opt) {
        if (opt)
            j[key] = static_cast<std::uint64_t>(*opt);
    };
    put("state", r.state);
    put("cur_state", r.cur_state);
    put("port", r.port);
    put("pkey_index", r.pkey_index);
    put("qkey", r.qkey);
    put("access", r.access);
    put("path_mtu", r.path_mtu);
    put("dest_qpn", r.dest_qpn);
    put("rq_psn", r.rq_psn);
    put("sq_psn", r.sq_psn);
    put("max_rd_atomic", r.max_rd_atomic);
    put("max_dest_rd_atomic", r.max_dest_rd_atomic);
    put("min_rnr_timer", r.min_rnr_timer);
    put("timeout", r.timeout);
    put("retry_cnt", r.retry_cnt);
    put("rnr_retry", r.rnr_retry);
    if (r.dgid)
        j["dgid"] = gid_text(r.dgid->data());
    put("dlid", r.dlid);
    put("sl", r.sl);
    put("sgid_index", r.sgid_index);
    put("hop_limit", r.hop_limit);
    put("traffic_class", r.traffic_class);
    put("flow_label", r.flow_label);
    put("static_rate", r.static_rate);
    put("path_mig_state", r.path_mig_state);
    return j;
}

ModifyRequest modify_request_from_json(const Json& j)
{
    ModifyRequest r;
    get(j, "state", r.state, IBV_QPS_ERR);
    get(j, "cur_state", r.cur_state, IBV_QPS_ERR);
    get(j, "port", r.port, 255);
    get(j, "pkey_index", r.pkey_index, decode::max_pkey_index);
    get(j, "qkey", r.qkey, 0xffffffff);
    get(j, "access", r.access, 0xffffffff);
    get(j, "path_mtu", r.path_mtu, IBV_MTU_4096, IBV_MTU_256);
    get(j, "dest_qpn", r.dest_qpn, 0xffffff);
    get(j, "rq_psn", r.rq_psn, 0xffffff);
    get(j, "sq_psn", r.sq_psn, 0xffffff);
    get(j, "max_rd_atomic", r.max_rd_atomic, 255);
    get(j, "max_dest_rd_atomic", r.max_dest_rd_atomic, 255);
    get(j, "min_rnr_timer", r.min_rnr_timer, decode::max_timer_code);
    get(j, "timeout", r.timeout, decode::max_timer_code);
    get(j, "retry_cnt", r.retry_cnt, decode::max_retry);
    get(j, "rnr_retry", r.rnr_retry, decode::max_retry);
    if (j.contains("dgid")) {
        const Json& v = j.at("dgid");
        auto g = v.is_string() ? parse_gid(v.get<std::string>()) : std::nullopt;
        if (!g)
            throw UsageError(fmt::format("dgid: '{}' is not a GID (IPv6 form) or an IPv4 address", util::json_text(v)));
        r.dgid = g;
    }
    get(j, "dlid", r.dlid, 0xffff);
    get(j, "sl", r.sl, decode::max_sl);
    get(j, "sgid_index", r.sgid_index, 255);
    get(j, "hop_limit", r.hop_limit, 255);
    get(j, "traffic_class", r.traffic_class, decode::max_traffic_class);
    get(j, "flow_label", r.flow_label, decode::max_flow_label);
    get(j, "static_rate", r.static_rate, 255);
    get(j, "path_mig_state", r.path_mig_state, IBV_MIG_ARMED);
    return r;
}

namespace {
Json ah_to_json(const ibv_ah_attr& ah)
{
    return Json{{"dlid", ah.dlid},
                {"sl", ah.sl},
                {"src_path_bits", ah.src_path_bits},
                {"static_rate", ah.static_rate},
                {"is_global", ah.is_global},
                {"port_num", ah.port_num},
                {"dgid", gid_text(ah.grh.dgid.raw)},
                {"flow_label", ah.grh.flow_label},
                {"sgid_index", ah.grh.sgid_index},
                {"hop_limit", ah.grh.hop_limit},
                {"traffic_class", ah.grh.traffic_class}};
}

void ah_from_json(const Json& j, ibv_ah_attr& ah)
{
    ah.dlid = j.at("dlid").get<std::uint16_t>();
    ah.sl = j.at("sl").get<std::uint8_t>();
    ah.src_path_bits = j.at("src_path_bits").get<std::uint8_t>();
    ah.static_rate = j.at("static_rate").get<std::uint8_t>();
    ah.is_global = j.at("is_global").get<std::uint8_t>();
    ah.port_num = j.at("port_num").get<std::uint8_t>();
    if (auto g = parse_gid(j.at("dgid").get<std::string>()))
        std::memcpy(ah.grh.dgid.raw, g->data(), 16);
    ah.grh.flow_label = j.at("flow_label").get<std::uint32_t>();
    ah.grh.sgid_index = j.at("sgid_index").get<std::uint8_t>();
    ah.grh.hop_limit = j.at("hop_limit").get<std::uint8_t>();
    ah.grh.traffic_class = j.at("traffic_class").get<std::uint8_t>();
}

Json cap_to_json(const ibv_qp_cap& c)
{
    return Json{{"max_send_wr", c.max_send_wr},
                {"max_recv_wr", c.max_recv_wr},
                {"max_send_sge", c.max_send_sge},
                {"max_recv_sge", c.max_recv_sge},
                {"max_inline_data", c.max_inline_data}};
}

void cap_from_json(const Json& j, ibv_qp_cap& c)
{
    c.max_send_wr = j.at("max_send_wr").get<std::uint32_t>();
    c.max_recv_wr = j.at("max_recv_wr").get<std::uint32_t>();
    c.max_send_sge = j.at("max_send_sge").get<std::uint32_t>();
    c.max_recv_sge = j.at("max_recv_sge").get<std::uint32_t>();
    c.max_inline_data = j.at("max_inline_data").get<std::uint32_t>();
}
}  // namespace

Json qp_attr_to_json(const ibv_qp_attr& a, const ibv_qp_init_attr& init)
{
    return Json{{"qp_state", a.qp_state},
                {"cur_qp_state", a.cur_qp_state},
                {"path_mtu", a.path_mtu},
                {"path_mig_state", a.path_mig_state},
                {"qkey", a.qkey},
                {"rq_psn", a.rq_psn},
                {"sq_psn", a.sq_psn},
                {"dest_qp_num", a.dest_qp_num},
                {"qp_access_flags", a.qp_access_flags},
                {"cap", cap_to_json(a.cap)},
                {"ah_attr", ah_to_json(a.ah_attr)},
                {"alt_ah_attr", ah_to_json(a.alt_ah_attr)},
                {"pkey_index", a.pkey_index},
                {"alt_pkey_index", a.alt_pkey_index},
                {"en_sqd_async_notify", a.en_sqd_async_notify},
                {"sq_draining", a.sq_draining},
                {"max_rd_atomic", a.max_rd_atomic},
                {"max_dest_rd_atomic", a.max_dest_rd_atomic},
                {"min_rnr_timer", a.min_rnr_timer},
                {"port_num", a.port_num},
                {"timeout", a.timeout},
                {"retry_cnt", a.retry_cnt},
                {"rnr_retry", a.rnr_retry},
                {"alt_port_num", a.alt_port_num},
                {"alt_timeout", a.alt_timeout},
                {"rate_limit", a.rate_limit},
                {"init", Json{{"qp_type", init.qp_type}, {"sq_sig_all", init.sq_sig_all}, {"cap", cap_to_json(init.cap)}}}};
}

void qp_attr_from_json(const Json& j, ibv_qp_attr& a, ibv_qp_init_attr& init)
{
    a = ibv_qp_attr{};
    init = ibv_qp_init_attr{};
    a.qp_state = j.at("qp_state").get<ibv_qp_state>();
    a.cur_qp_state = j.at("cur_qp_state").get<ibv_qp_state>();
    a.path_mtu = j.at("path_mtu").get<ibv_mtu>();
    a.path_mig_state = j.at("path_mig_state").get<ibv_mig_state>();
    a.qkey = j.at("qkey").get<std::uint32_t>();
    a.rq_psn = j.at("rq_psn").get<std::uint32_t>();
    a.sq_psn = j.at("sq_psn").get<std::uint32_t>();
    a.dest_qp_num = j.at("dest_qp_num").get<std::uint32_t>();
    a.qp_access_flags = j.at("qp_access_flags").get<unsigned>();
    cap_from_json(j.at("cap"), a.cap);
    ah_from_json(j.at("ah_attr"), a.ah_attr);
    ah_from_json(j.at("alt_ah_attr"), a.alt_ah_attr);
    a.pkey_index = j.at("pkey_index").get<std::uint16_t>();
    a.alt_pkey_index = j.at("alt_pkey_index").get<std::uint16_t>();
    a.en_sqd_async_notify = j.at("en_sqd_async_notify").get<std::uint8_t>();
    a.sq_draining = j.at("sq_draining").get<std::uint8_t>();
    a.max_rd_atomic = j.at("max_rd_atomic").get<std::uint8_t>();
    a.max_dest_rd_atomic = j.at("max_dest_rd_atomic").get<std::uint8_t>();
    a.min_rnr_timer = j.at("min_rnr_timer").get<std::uint8_t>();
    a.port_num = j.at("port_num").get<std::uint8_t>();
    a.timeout = j.at("timeout").get<std::uint8_t>();
    a.retry_cnt = j.at("retry_cnt").get<std::uint8_t>();
    a.rnr_retry = j.at("rnr_retry").get<std::uint8_t>();
    a.alt_port_num = j.at("alt_port_num").get<std::uint8_t>();
    a.alt_timeout = j.at("alt_timeout").get<std::uint8_t>();
    a.rate_limit = j.at("rate_limit").get<std::uint32_t>();
    const Json& i = j.at("init");
    init.qp_type = i.at("qp_type").get<ibv_qp_type>();
    init.sq_sig_all = i.at("sq_sig_all").get<int>();
    cap_from_json(i.at("cap"), init.cap);
}

}  // namespace qps::qp
