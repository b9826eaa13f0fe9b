// The decoded QP report built from the holder's description of a QP
// (holder.cpp `describe`): attributes from qp_attr_to_json plus qpn, device,
// port, granted, buffer, posted, port_state, pkey, sgid and last_error.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <doctest/doctest.h>
#include <string>

#include "src/json.hpp"
#include "src/qp/attributes.hpp"
#include "src/report/qp.hpp"
#include "unit/util.hpp"

using namespace qps;
using qps::Json;

using qps::test::contains;
namespace {

bool any_contains(const std::vector<std::string>& v, const std::string& needle)
{
    return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return contains(s, needle); });
}

// No such device: diagnose() finds no sysfs counters for it.
constexpr const char* no_device = "qpscope_unit_no_such_device0";

// An RC QP on port 1 in `state`, connected over RoCE v2 to 192.0.2.1.
ibv_qp_attr rc_attr(ibv_qp_state state)
{
    ibv_qp_attr a{};
    a.qp_state = state;
    a.cur_qp_state = state;
    a.path_mtu = IBV_MTU_1024;
    a.path_mig_state = IBV_MIG_ARMED;
    a.qkey = 0;
    a.rq_psn = 0x10;
    a.sq_psn = 0x20;
    a.dest_qp_num = 0x12;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    a.cap = {16, 16, 1, 1, 64};
    a.ah_attr.dlid = 0;
    a.ah_attr.sl = 3;
    a.ah_attr.src_path_bits = 0;
    a.ah_attr.static_rate = IBV_RATE_25_GBPS;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    const std::uint8_t dgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
    std::memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
    a.ah_attr.grh.flow_label = 0x12345;
    a.ah_attr.grh.sgid_index = 1;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.traffic_class = 0x8b;  // DSCP 34 (AF41), ECN 3 (CE)
    a.pkey_index = 0;
    a.max_rd_atomic = 1;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.port_num = 1;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 6;
    return a;
}

ibv_qp_init_attr rc_init()
{
    ibv_qp_init_attr init{};
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 1;
    init.cap = {32, 32, 2, 2, 128};
    return init;
}

// What holder.cpp's describe() adds around the attributes.
Json held(const ibv_qp_attr& a, const ibv_qp_init_attr& init, int port_state = IBV_PORT_ACTIVE)
{
    Json j{{"qpn", 0x1a2},
           {"device", no_device},
           {"port", 1},
           {"attr", qp::qp_attr_to_json(a, init)},
           {"granted", Json{{"max_send_wr", 32},
                            {"max_recv_wr", 32},
                            {"max_send_sge", 2},
                            {"max_recv_sge", 2},
                            {"max_inline_data", 128}}},
           {"buffer", Json{{"addr", 0x7f0000001000ull}, {"size", 4096}, {"lkey", 0x111}, {"rkey", 0x222}}},
           {"posted", 3}};
    j["port_state"] = port_state;
    j["pkey"] = 0xffff;
    j["sgid"] = Json{{"gid", "::ffff:192.0.2.2"}, {"type", IBV_GID_TYPE_ROCE_V2}};
    return j;
}

Json retry_exceeded()
{
    return Json{{"status", IBV_WC_RETRY_EXC_ERR},
                {"vendor_err", 0x81},
                {"opcode", IBV_WC_SEND},
                {"byte_len", 0},
                {"qp_num", 0x1a2}};
}

}  // namespace

TEST_CASE("build_qp_report: every attribute decoded")
{
    const report::QpReport r = report::build_qp_report(held(rc_attr(IBV_QPS_RTS), rc_init()));
    CHECK(r.qpn == 0x1a2u);
    CHECK(r.device == no_device);
    CHECK(r.type.raw == 2);
    CHECK(r.type.name == "RC");
    CHECK(r.state.raw == 3);
    CHECK(r.state.name == "RTS");
    CHECK(r.path_mtu.raw == 3);
    CHECK(r.path_mtu.unit == "bytes");
    CHECK(r.path_mtu.value == 1024.0);
    CHECK(r.mig_state.name == "ARMED");
    CHECK(r.port == 1);
    CHECK(r.rq_psn == 0x10u);
    CHECK(r.sq_psn == 0x20u);
    CHECK(r.dest_qpn == 0x12u);
    CHECK(r.access.raw == 7u);
    CHECK(r.access.names == std::vector<std::string>{"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ"});
    CHECK(r.access.unknown == 0u);
    // Caps are the init attributes' (what the QP was created with).
    CHECK(r.caps.max_send_wr == 32u);
    CHECK(r.caps.max_recv_wr == 32u);
    CHECK(r.caps.max_send_sge == 2u);
    CHECK(r.caps.max_recv_sge == 2u);
    CHECK(r.caps.max_inline_data == 128u);
    CHECK(r.sq_sig_all);
    CHECK_FALSE(r.sq_draining);
    REQUIRE(r.pkey.has_value());
    CHECK(*r.pkey == 0xffff);
    CHECK(r.max_rd_atomic == 1);
    CHECK(r.max_dest_rd_atomic == 1);
    CHECK(r.buffer_addr == 0x7f0000001000ull);
    CHECK(r.buffer_size == 4096u);
    CHECK(r.buffer_rkey == 0x222u);
    CHECK_FALSE(r.last_error);
    CHECK_FALSE(r.diagnosis);
}

TEST_CASE("build_qp_report: timers, retries and the waits derived from them")
{
    const report::QpReport r = report::build_qp_report(held(rc_attr(IBV_QPS_RTS), rc_init()));
    // timeout 14: 4.096 µs × 2^14 = 67108.864 µs
    CHECK(r.timeout.raw == 14);
    CHECK(r.timeout.unit == "us");
    REQUIRE(r.timeout.value.has_value());
    CHECK(*r.timeout.value == doctest::Approx(67108.864));
    // min_rnr_timer 12: 0.64 ms (IBA table)
    CHECK(r.min_rnr_timer.raw == 12);
    CHECK(r.min_rnr_timer.unit == "ms");
    REQUIRE(r.min_rnr_timer.value.has_value());
    CHECK(*r.min_rnr_timer.value == doctest::Approx(0.64));
    CHECK(r.retry_cnt.value == 7.0);
    CHECK(r.rnr_retry.value == 6.0);
    // 67108.864 µs × (7 + 1) = 536870.912 µs
    REQUIRE(r.retry_exceeded_wait_us.has_value());
    CHECK(*r.retry_exceeded_wait_us == doctest::Approx(536870.912));
    // 0.64 ms × 6 = 3.84 ms
    REQUIRE(r.rnr_exceeded_wait_ms.has_value());
    CHECK(*r.rnr_exceeded_wait_ms == doctest::Approx(3.84));
    // alt_timeout 0: infinite
    CHECK(r.alt_timeout.name == "infinite");
}

TEST_CASE("build_qp_report: timeout 0 and rnr_retry 7 never give up")
{
    ibv_qp_attr a = rc_attr(IBV_QPS_RTS);
    a.timeout = 0;
    a.rnr_retry = 7;
    const report::QpReport r = report::build_qp_report(held(a, rc_init()));
    CHECK(r.timeout.name == "infinite");
    CHECK_FALSE(r.timeout.value);
    CHECK(r.rnr_retry.name == "infinite");
    CHECK_FALSE(r.rnr_retry.value);
    CHECK_FALSE(r.retry_exceeded_wait_us);
    CHECK_FALSE(r.rnr_exceeded_wait_ms);
}

TEST_CASE("build_qp_report: address vector, sgid type and traffic class")
{
    const report::QpReport r = report::build_qp_report(held(rc_attr(IBV_QPS_RTS), rc_init()));
    const report::AddressReport& av = r.av;
    CHECK(av.sl == 3);
    CHECK(av.port == 1);
    CHECK(av.global);
    CHECK(av.dgid == "0000:0000:0000:0000:0000:ffff:c000:0201");  // the full form, as ports prints GIDs
    CHECK(av.flow_label == 0x12345u);
    CHECK(av.sgid_index == 1);
    CHECK(av.hop_limit == 64);
    CHECK(av.static_rate.raw == IBV_RATE_25_GBPS);
    CHECK(av.static_rate.value == 25.0);
    CHECK(av.sgid == "0000:0000:0000:0000:0000:ffff:c000:0202");  // canonical, whatever form the holder wrote
    REQUIRE(av.sgid_type.has_value());
    CHECK(av.sgid_type->raw == 2);
    CHECK(av.sgid_type->name == "RoCE v2");
    // 0x8b = 100010 11: DSCP 34, ECN 3 (CE)
    CHECK(av.traffic_class.raw == 139);
    CHECK(av.traffic_class.name == "DSCP 34, ECN CE");
    CHECK(av.dscp == 34);
    CHECK(av.ecn.raw == 3);
    CHECK(av.ecn.name == "CE");
    // The alternate path is empty and has no sgid.
    CHECK_FALSE(r.alt_av.global);
    CHECK(r.alt_av.dgid == "0000:0000:0000:0000:0000:0000:0000:0000");
    CHECK(r.alt_av.sgid.empty());
    CHECK_FALSE(r.alt_av.sgid_type);
    CHECK(r.alt_av.traffic_class.name == "DSCP 0, ECN Not-ECT");
}

TEST_CASE("build_qp_report: ECN code points by name")
{
    struct Case {
        std::uint8_t tc;
        int dscp;
        const char* ecn;
    };
    for (const Case c : {Case{0x00, 0, "Not-ECT"}, Case{0x01, 0, "ECT(1)"}, Case{0x02, 0, "ECT(0)"},
                         Case{0x6a, 26, "ECT(0)"}, Case{0xb8, 46, "Not-ECT"}, Case{0xff, 63, "CE"}}) {
        CAPTURE(int(c.tc));
        ibv_qp_attr a = rc_attr(IBV_QPS_RTS);
        a.ah_attr.grh.traffic_class = c.tc;
        const report::QpReport r = report::build_qp_report(held(a, rc_init()));
        CHECK(r.av.dscp == c.dscp);
        CHECK(r.av.ecn.name == c.ecn);
        CHECK(r.av.traffic_class.name == "DSCP " + std::to_string(c.dscp) + ", ECN " + c.ecn);
    }
}

TEST_CASE("build_qp_report: sgid type RoCE v1 and IB; no sgid or pkey when the holder could not read them")
{
    Json h = held(rc_attr(IBV_QPS_RTS), rc_init());
    h["sgid"]["type"] = IBV_GID_TYPE_ROCE_V1;
    CHECK(report::build_qp_report(h).av.sgid_type->name == "RoCE v1");
    h["sgid"]["type"] = IBV_GID_TYPE_IB;
    CHECK(report::build_qp_report(h).av.sgid_type->name == "IB");

    h.erase("sgid");
    h.erase("pkey");
    const report::QpReport r = report::build_qp_report(h);
    CHECK(r.av.sgid.empty());
    CHECK_FALSE(r.av.sgid_type);
    CHECK_FALSE(r.pkey);
}

TEST_CASE("build_qp_report: port 0 in the attributes (a QP still in RESET) takes the holder's port")
{
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RESET;
    a.port_num = 0;
    Json h = held(a, rc_init());
    h["port"] = 2;
    const report::QpReport r = report::build_qp_report(h);
    CHECK(r.port == 2);
    CHECK(r.state.name == "RESET");
    CHECK_FALSE(r.diagnosis);
}

TEST_CASE("build_completion: status, meaning, opcode, lengths")
{
    report::CompletionReport c = report::build_completion(retry_exceeded());
    CHECK(c.status.raw == 12);
    CHECK(c.status.name == "RETRY_EXC_ERR");
    CHECK(c.meaning.rfind("transport retry counter exceeded", 0) == 0);
    CHECK(c.vendor_err == 0x81u);
    CHECK(c.opcode.raw == 0);
    CHECK(c.opcode.name == "SEND");
    CHECK(c.byte_len == 0u);

    c = report::build_completion(Json{{"status", IBV_WC_RNR_RETRY_EXC_ERR},
                                      {"vendor_err", 0},
                                      {"opcode", IBV_WC_RDMA_WRITE},
                                      {"byte_len", 4096},
                                      {"qp_num", 7}});
    CHECK(c.status.raw == 13);
    CHECK(c.status.name == "RNR_RETRY_EXC_ERR");
    CHECK(c.meaning.rfind("RNR retry counter exceeded", 0) == 0);
    CHECK(c.opcode.name == "RDMA_WRITE");
    CHECK(c.byte_len == 4096u);

    c = report::build_completion(
        Json{{"status", 99}, {"vendor_err", 1}, {"opcode", 1000}, {"byte_len", 1}, {"qp_num", 7}});
    CHECK_FALSE(c.status.known);
    CHECK(c.status.name == "UNKNOWN(0x63)");
    CHECK(c.meaning == "unknown status");
    CHECK_FALSE(c.opcode.known);
    CHECK(c.opcode.name == "UNKNOWN(0x3e8)");
}

TEST_CASE("build_qp_report: a QP in ERR after RETRY_EXC_ERR gets a diagnosis that says what to check")
{
    Json h = held(rc_attr(IBV_QPS_ERR), rc_init());
    h["last_error"] = retry_exceeded();
    const report::QpReport r = report::build_qp_report(h);
    CHECK(r.state.name == "ERR");
    REQUIRE(r.last_error.has_value());
    CHECK(r.last_error->status.name == "RETRY_EXC_ERR");
    CHECK(r.last_error->vendor_err == 0x81u);
    REQUIRE(r.diagnosis.has_value());
    const report::Diagnosis& d = *r.diagnosis;
    CHECK(contains(d.summary, "RETRY_EXC_ERR"));
    CHECK(contains(d.summary, "transport retry counter exceeded"));
    CHECK(any_contains(d.checks, "dest-qpn"));
    CHECK(any_contains(d.checks, "dgid"));
    CHECK(any_contains(d.checks, "path MTU"));
    CHECK(any_contains(d.checks, "sq-psn"));
    // The port is ACTIVE: no port line first; the way out is last.
    REQUIRE(d.checks.size() >= 2);
    CHECK_FALSE(contains(d.checks.front(), "not ACTIVE"));
    CHECK(contains(d.checks.back(), "qp modify --state reset"));
    CHECK(d.port_state.name == "ACTIVE");
    CHECK(d.error_counters.empty());  // no such device in sysfs
}

TEST_CASE("build_qp_report: a port that is not ACTIVE comes first in the checks")
{
    Json h = held(rc_attr(IBV_QPS_ERR), rc_init(), IBV_PORT_DOWN);
    h["last_error"] = retry_exceeded();
    const report::QpReport r = report::build_qp_report(h);
    REQUIRE(r.diagnosis.has_value());
    REQUIRE_FALSE(r.diagnosis->checks.empty());
    CHECK(r.diagnosis->checks.front() == "port 1 is DOWN, not ACTIVE");
    CHECK(r.diagnosis->port_state.name == "DOWN");
}

TEST_CASE("build_qp_report: other statuses get their own checks")
{
    Json h = held(rc_attr(IBV_QPS_ERR), rc_init());
    h["last_error"] = retry_exceeded();
    h["last_error"]["status"] = IBV_WC_REM_ACCESS_ERR;
    report::QpReport r = report::build_qp_report(h);
    REQUIRE(r.diagnosis.has_value());
    CHECK(contains(r.diagnosis->summary, "REM_ACCESS_ERR"));
    CHECK(any_contains(r.diagnosis->checks, "rkey"));
    CHECK_FALSE(any_contains(r.diagnosis->checks, "dest-qpn"));

    h["last_error"]["status"] = IBV_WC_RNR_RETRY_EXC_ERR;
    r = report::build_qp_report(h);
    REQUIRE(r.diagnosis.has_value());
    CHECK(contains(r.diagnosis->summary, "RNR_RETRY_EXC_ERR"));
    CHECK(any_contains(r.diagnosis->checks, "min-rnr-timer"));

    // A status without advice: only the way out.
    h["last_error"]["status"] = IBV_WC_FATAL_ERR;
    r = report::build_qp_report(h);
    REQUIRE(r.diagnosis.has_value());
    CHECK(contains(r.diagnosis->summary, "FATAL_ERR"));
    REQUIRE(r.diagnosis->checks.size() == 1);
    CHECK(contains(r.diagnosis->checks[0], "qp modify --state reset"));
}

TEST_CASE("build_qp_report: ERR with no failed completion recorded says so")
{
    const report::QpReport r = report::build_qp_report(held(rc_attr(IBV_QPS_ERR), rc_init()));
    CHECK_FALSE(r.last_error);
    REQUIRE(r.diagnosis.has_value());
    CHECK(contains(r.diagnosis->summary, "ERR with no failed completion"));
}

TEST_CASE("build_qp_report: a UD QP in SQE gets a diagnosis too")
{
    ibv_qp_attr a = rc_attr(IBV_QPS_SQE);
    ibv_qp_init_attr init = rc_init();
    init.qp_type = IBV_QPT_UD;
    const report::QpReport r = report::build_qp_report(held(a, init));
    CHECK(r.type.name == "UD");
    CHECK(r.state.name == "SQE");
    REQUIRE(r.diagnosis.has_value());
    CHECK(contains(r.diagnosis->summary, "SQE"));
}

TEST_CASE("build_qp_report: an RTS QP gets no diagnosis, even with an old error recorded")
{
    CHECK_FALSE(report::build_qp_report(held(rc_attr(IBV_QPS_RTS), rc_init())).diagnosis);
    Json h = held(rc_attr(IBV_QPS_RTS), rc_init());
    h["last_error"] = retry_exceeded();
    const report::QpReport r = report::build_qp_report(h);
    REQUIRE(r.last_error.has_value());
    CHECK(r.last_error->status.name == "RETRY_EXC_ERR");
    CHECK_FALSE(r.diagnosis);
    for (ibv_qp_state s : {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_SQD}) {
        CAPTURE(s);
        CHECK_FALSE(report::build_qp_report(held(rc_attr(s), rc_init())).diagnosis);
    }
}
