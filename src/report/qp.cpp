#include "src/report/qp.hpp"

#include <fmt/format.h>

#include "src/decode/counters.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"
#include "src/json.hpp"
#include "src/qp/attributes.hpp"

namespace qps::report {

namespace {

// A GID from the holder in the canonical full form (decode::format_gid),
// whatever form the holder wrote (an older holder wrote the short form).
std::string canonical_gid(const std::string& text)
{
    const auto g = qp::parse_gid(text);
    return g ? decode::format_gid(*g) : text;
}

AddressReport address(const Json& ah, const Json* sgid)
{
    AddressReport a;
    a.dlid = ah.at("dlid").get<std::uint16_t>();
    a.sl = ah.at("sl").get<std::uint8_t>();
    a.port = ah.at("port_num").get<std::uint8_t>();
    a.src_path_bits = ah.at("src_path_bits").get<std::uint8_t>();
    a.static_rate = decode::static_rate(ah.at("static_rate").get<int>());
    a.global = ah.at("is_global").get<int>() != 0;
    a.dgid = canonical_gid(ah.at("dgid").get<std::string>());
    a.flow_label = ah.at("flow_label").get<std::uint32_t>();
    a.sgid_index = ah.at("sgid_index").get<std::uint8_t>();
    a.hop_limit = ah.at("hop_limit").get<std::uint8_t>();
    const auto tc = decode::traffic_class(ah.at("traffic_class").get<std::uint8_t>());
    a.traffic_class = decode::Decoded::named(tc.raw, fmt::format("DSCP {}, ECN {}", tc.dscp, tc.ecn_name));
    a.dscp = tc.dscp;
    a.ecn = decode::Decoded::named(tc.ecn, std::string(tc.ecn_name));
    if (sgid && sgid->is_object()) {
        a.sgid = canonical_gid(sgid->value("gid", ""));
        if (sgid->contains("type"))
            a.sgid_type = decode::gid_type(sgid->at("type").get<int>());
    }
    return a;
}

Diagnosis diagnose(const QpReport& r, const Json& held)
{
    Diagnosis d;
    const bool port_known = held.contains("port_state");
    d.port_state = port_known ? decode::port_state(held.at("port_state").get<int>())
                              : decode::Decoded::named(-1, "unknown (the holder could not query the port)");
    if (r.last_error) {
        d.summary = fmt::format("the last completion failed with {}: {}", *r.last_error->status.name,
                                r.last_error->meaning);
        d.checks = decode::wc_status_checks(static_cast<int>(r.last_error->status.raw));
    } else {
        d.summary = fmt::format("the QP is in {} with no failed completion recorded by the holder: it was moved "
                                "there by a modify, or by an asynchronous error (QP fatal, port down)",
                                *r.state.name);
    }
    if (port_known && d.port_state.raw != IBV_PORT_ACTIVE)
        d.checks.insert(d.checks.begin(), fmt::format("port {} is {}, not ACTIVE", r.port, *d.port_state.name));
    d.checks.push_back("a QP in ERR must go to RESET (qp modify --state reset) and be set up again");
    for (const char* dir : {"counters", "hw_counters"}) {
        const auto set = kernel::read_port_counters(r.device, r.port, dir);
        for (const auto& c : set.counters)
            if (const auto e = decode::error_counter(c.name); e && c.value)
                d.error_counters.push_back({c.name, *c.value, e->meaning});
    }
    return d;
}

}  // namespace

CompletionReport build_completion(const Json& wc)
{
    CompletionReport c;
    const int status = wc.at("status").get<int>();
    c.status = decode::wc_status(status);
    c.meaning = std::string(decode::wc_status_meaning(status));
    c.vendor_err = wc.at("vendor_err").get<std::uint32_t>();
    c.opcode = decode::wc_opcode(wc.at("opcode").get<int>());
    c.byte_len = wc.at("byte_len").get<std::uint32_t>();
    return c;
}

std::vector<HeldEventReport> build_held_events(const Json& events)
{
    std::vector<HeldEventReport> out;
    for (const Json& e : events)
        out.push_back({e.value("event", std::string()), e.value("severity", std::string()),
                       e.value("meaning", std::string()), e.value("at", std::string())});
    return out;
}

QpReport build_qp_report(const Json& held)
{
    const Json& a = held.at("attr");
    const Json& init = a.at("init");
    QpReport r;
    r.qpn = held.at("qpn").get<std::uint32_t>();
    r.device = held.at("device").get<std::string>();
    r.type = decode::qp_type(init.at("qp_type").get<int>());
    r.state = decode::qp_state(a.at("qp_state").get<int>());
    r.path_mtu = decode::path_mtu(a.at("path_mtu").get<int>());
    r.mig_state = decode::mig_state(a.at("path_mig_state").get<int>());
    r.port = a.at("port_num").get<std::uint8_t>();
    if (r.port == 0)
        r.port = held.at("port").get<std::uint8_t>();
    r.qkey = a.at("qkey").get<std::uint32_t>();
    r.rq_psn = a.at("rq_psn").get<std::uint32_t>();
    r.sq_psn = a.at("sq_psn").get<std::uint32_t>();
    r.dest_qpn = a.at("dest_qp_num").get<std::uint32_t>();
    r.access = decode::access_flags(a.at("qp_access_flags").get<std::uint32_t>());
    const Json& cap = init.at("cap");
    r.caps = {cap.at("max_send_wr").get<std::uint32_t>(), cap.at("max_recv_wr").get<std::uint32_t>(),
              cap.at("max_send_sge").get<std::uint32_t>(), cap.at("max_recv_sge").get<std::uint32_t>(),
              cap.at("max_inline_data").get<std::uint32_t>()};
    r.sq_sig_all = init.at("sq_sig_all").get<int>() != 0;
    r.sq_draining = a.at("sq_draining").get<int>() != 0;
    const Json* sgid = held.contains("sgid") ? &held.at("sgid") : nullptr;
    r.av = address(a.at("ah_attr"), sgid);
    r.alt_av = address(a.at("alt_ah_attr"), nullptr);
    r.pkey_index = a.at("pkey_index").get<std::uint16_t>();
    r.alt_pkey_index = a.at("alt_pkey_index").get<std::uint16_t>();
    if (held.contains("pkey"))
        r.pkey = held.at("pkey").get<std::uint16_t>();
    r.max_rd_atomic = a.at("max_rd_atomic").get<std::uint8_t>();
    r.max_dest_rd_atomic = a.at("max_dest_rd_atomic").get<std::uint8_t>();
    r.alt_port = a.at("alt_port_num").get<std::uint8_t>();
    const int timeout = a.at("timeout").get<int>(), retry = a.at("retry_cnt").get<int>();
    const int rnr_timer = a.at("min_rnr_timer").get<int>(), rnr_retry = a.at("rnr_retry").get<int>();
    r.min_rnr_timer = decode::rnr_timer(rnr_timer);
    r.timeout = decode::local_ack_timeout(timeout);
    r.retry_cnt = decode::retry_cnt(retry);
    r.rnr_retry = decode::rnr_retry(rnr_retry);
    r.alt_timeout = decode::local_ack_timeout(a.at("alt_timeout").get<int>());
    r.retry_exceeded_wait_us = decode::retry_exceeded_wait_us(timeout, retry);
    // The RNR wait uses the responder's timer; ours is the best estimate when
    // both sides were set up alike.
    r.rnr_exceeded_wait_ms = decode::rnr_exceeded_wait_ms(rnr_timer, rnr_retry);
    r.rate_limit_kbps = a.at("rate_limit").get<std::uint32_t>();
    if (held.contains("last_error"))
        r.last_error = build_completion(held.at("last_error"));
    const Json& buf = held.at("buffer");
    r.buffer_addr = buf.at("addr").get<std::uint64_t>();
    r.buffer_size = buf.at("size").get<std::uint64_t>();
    r.buffer_rkey = buf.at("rkey").get<std::uint32_t>();
    if (held.contains("srq"))
        r.srq = held.at("srq").get<std::uint32_t>();
    if (held.contains("events"))
        r.events = build_held_events(held.at("events"));
    if (held.contains("xrcd"))
        r.xrcd = held.at("xrcd").get<std::string>();
    r.opened = held.value("opened", false);
    if (r.state.raw == IBV_QPS_ERR || r.state.raw == IBV_QPS_SQE)
        r.diagnosis = diagnose(r, held);
    return r;
}

}  // namespace qps::report
