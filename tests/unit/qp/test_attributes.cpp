// ModifyRequest -> ibv_qp_attr + mask, its JSON form for the holder, the
// raw ibv_query_qp attribute set in JSON, and GID text parsing.
#include <array>
#include <cstdint>
#include <cstring>
#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "src/qp/attributes.hpp"
#include "unit/util.hpp"

using namespace qps::qp;
using qps::Json;
using qps::UsageError;

using qps::test::contains;
using qps::test::thrown;
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
using Gid = std::array<std::uint8_t, 16>;

const Gid fe80_1{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
const Gid v4_192_0_2_1{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
const Gid fe80_full{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};

Gid raw_of(const ibv_gid& g)
{
    Gid out;
    std::memcpy(out.data(), g.raw, 16);
    return out;
}

// A current attribute set with an address vector, as ibv_query_qp returns
// for a connected QP.
ibv_qp_attr connected_current()
{
    ibv_qp_attr c{};
    c.port_num = 1;
    c.ah_attr.dlid = 7;
    c.ah_attr.sl = 3;
    c.ah_attr.src_path_bits = 0;
    c.ah_attr.static_rate = 0;
    c.ah_attr.is_global = 1;
    c.ah_attr.port_num = 1;
    std::memcpy(c.ah_attr.grh.dgid.raw, fe80_full.data(), 16);
    c.ah_attr.grh.flow_label = 5;
    c.ah_attr.grh.sgid_index = 2;
    c.ah_attr.grh.hop_limit = 64;
    c.ah_attr.grh.traffic_class = 106;
    return c;
}

}  // namespace

// ------------------------------------------------------------------ to_verbs

TEST_CASE("to_verbs: each non-AV attribute sets its field and exactly its mask bit")
{
    const ibv_qp_attr none{};
    ibv_qp_attr a{};
    int mask = -1;

    ModifyRequest r;
    to_verbs(r, none, a, mask);
    CHECK(mask == 0);

#define ONE(member, value, field, bit)          \
    do {                                        \
        ModifyRequest q;                        \
        q.member = value;                       \
        to_verbs(q, none, a, mask);             \
        CHECK(mask == (bit));                   \
        CHECK(a.field == (value));              \
    } while (0)

    // The numeric values of enum ibv_qp_attr_mask, spelled out.
    ONE(state, IBV_QPS_RTR, qp_state, 1);
    ONE(cur_state, IBV_QPS_RTS, cur_qp_state, 2);
    ONE(access, 7u, qp_access_flags, 8);
    ONE(pkey_index, 3, pkey_index, 16);
    ONE(port, 2, port_num, 32);
    ONE(qkey, 0x11111111u, qkey, 64);
    ONE(path_mtu, IBV_MTU_4096, path_mtu, 256);
    ONE(timeout, 14, timeout, 512);
    ONE(retry_cnt, 6, retry_cnt, 1024);
    ONE(rnr_retry, 7, rnr_retry, 2048);
    ONE(rq_psn, 0xabcdefu, rq_psn, 4096);
    ONE(max_rd_atomic, 4, max_rd_atomic, 8192);
    ONE(min_rnr_timer, 12, min_rnr_timer, 32768);
    ONE(sq_psn, 0x123456u, sq_psn, 65536);
    ONE(max_dest_rd_atomic, 16, max_dest_rd_atomic, 131072);
    ONE(path_mig_state, IBV_MIG_ARMED, path_mig_state, 262144);
    ONE(dest_qpn, 0xffffffu, dest_qp_num, 1048576);
#undef ONE
}

TEST_CASE("to_verbs: an RTR request gives exactly the RTR mask")
{
    ModifyRequest r;
    r.state = IBV_QPS_RTR;
    r.path_mtu = IBV_MTU_1024;
    r.dest_qpn = 0x12;
    r.rq_psn = 0;
    r.max_dest_rd_atomic = 1;
    r.min_rnr_timer = 12;
    r.dgid = v4_192_0_2_1;
    r.sgid_index = 1;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, ibv_qp_attr{}, a, mask);
    // STATE | AV | PATH_MTU | RQ_PSN | MIN_RNR_TIMER | MAX_DEST_RD_ATOMIC | DEST_QPN
    CHECK(mask == (1 | 128 | 256 | 4096 | 32768 | 131072 | 1048576));
    CHECK(a.qp_state == IBV_QPS_RTR);
    CHECK(a.path_mtu == IBV_MTU_1024);
    CHECK(a.dest_qp_num == 0x12u);
    CHECK(a.rq_psn == 0u);
    CHECK(a.max_dest_rd_atomic == 1);
    CHECK(a.min_rnr_timer == 12);
    CHECK(a.ah_attr.is_global == 1);
    CHECK(raw_of(a.ah_attr.grh.dgid) == v4_192_0_2_1);
    CHECK(a.ah_attr.grh.sgid_index == 1);
}

TEST_CASE("to_verbs: clears attr and mask it is given")
{
    ibv_qp_attr a;
    std::memset(&a, 0xa5, sizeof a);
    int mask = 0x7fffffff;
    ModifyRequest r;
    r.timeout = 3;
    to_verbs(r, ibv_qp_attr{}, a, mask);
    CHECK(mask == IBV_QP_TIMEOUT);
    CHECK(a.timeout == 3);
    CHECK(a.qp_state == 0);
    CHECK(a.qkey == 0u);
    CHECK(a.ah_attr.dlid == 0);
    CHECK(a.ah_attr.is_global == 0);
}

TEST_CASE("to_verbs: AV fields not given keep current's values")
{
    const ibv_qp_attr cur = connected_current();
    ModifyRequest r;
    r.sl = 5;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, cur, a, mask);
    CHECK(mask == IBV_QP_AV);
    CHECK(mask == 128);
    CHECK(a.ah_attr.sl == 5);
    CHECK(a.ah_attr.dlid == 7);
    CHECK(a.ah_attr.is_global == 1);
    CHECK(raw_of(a.ah_attr.grh.dgid) == fe80_full);
    CHECK(a.ah_attr.grh.flow_label == 5u);
    CHECK(a.ah_attr.grh.sgid_index == 2);
    CHECK(a.ah_attr.grh.hop_limit == 64);
    CHECK(a.ah_attr.grh.traffic_class == 106);
    CHECK(a.ah_attr.port_num == 1);
}

TEST_CASE("to_verbs: every AV field given overrides current's")
{
    const ibv_qp_attr cur = connected_current();
    ModifyRequest r;
    r.dgid = fe80_1;
    r.dlid = 0x1234;
    r.sl = 15;
    r.sgid_index = 3;
    r.hop_limit = 255;
    r.traffic_class = 0x8b;
    r.flow_label = 0xfffff;
    r.static_rate = IBV_RATE_25_GBPS;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, cur, a, mask);
    CHECK(mask == IBV_QP_AV);
    CHECK(raw_of(a.ah_attr.grh.dgid) == fe80_1);
    CHECK(a.ah_attr.is_global == 1);
    CHECK(a.ah_attr.dlid == 0x1234);
    CHECK(a.ah_attr.sl == 15);
    CHECK(a.ah_attr.grh.sgid_index == 3);
    CHECK(a.ah_attr.grh.hop_limit == 255);
    CHECK(a.ah_attr.grh.traffic_class == 0x8b);
    CHECK(a.ah_attr.grh.flow_label == 0xfffffu);
    CHECK(a.ah_attr.static_rate == 15);
    CHECK(a.ah_attr.port_num == 1);  // from current
}

TEST_CASE("to_verbs: a dgid sets is_global on a QP that had no GRH")
{
    ibv_qp_attr cur{};
    cur.port_num = 1;
    cur.ah_attr.dlid = 9;
    cur.ah_attr.is_global = 0;
    cur.ah_attr.port_num = 1;
    ModifyRequest r;
    r.dgid = v4_192_0_2_1;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, cur, a, mask);
    CHECK(mask == IBV_QP_AV);
    CHECK(a.ah_attr.is_global == 1);
    CHECK(raw_of(a.ah_attr.grh.dgid) == v4_192_0_2_1);
    CHECK(a.ah_attr.dlid == 9);

    // Without a dgid, a non-global AV stays non-global.
    ModifyRequest s;
    s.dlid = 10;
    to_verbs(s, cur, a, mask);
    CHECK(a.ah_attr.is_global == 0);
    CHECK(a.ah_attr.dlid == 10);
}

TEST_CASE("to_verbs: the AV's port comes from --port, else current's AV, else current's port")
{
    ibv_qp_attr cur = connected_current();
    ModifyRequest r;
    r.sl = 1;
    r.port = 2;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, cur, a, mask);
    CHECK(mask == (IBV_QP_PORT | IBV_QP_AV));
    CHECK(a.port_num == 2);
    CHECK(a.ah_attr.port_num == 2);

    // A fresh QP: the AV has no port yet, the QP has port 2 from INIT.
    ibv_qp_attr fresh{};
    fresh.port_num = 2;
    ModifyRequest s;
    s.dgid = fe80_1;
    to_verbs(s, fresh, a, mask);
    CHECK(mask == IBV_QP_AV);
    CHECK(a.ah_attr.port_num == 2);
    CHECK(a.port_num == 0);  // IBV_QP_PORT not sent

    // --port without any AV field does not touch ah_attr.
    ModifyRequest t;
    t.port = 1;
    to_verbs(t, cur, a, mask);
    CHECK(mask == IBV_QP_PORT);
    CHECK(a.ah_attr.port_num == 0);
    CHECK(a.ah_attr.dlid == 0);
}

TEST_CASE("to_verbs: no AV field given leaves the AV out even when current has one")
{
    const ibv_qp_attr cur = connected_current();
    ModifyRequest r;
    r.state = IBV_QPS_RTS;
    r.timeout = 14;
    ibv_qp_attr a{};
    int mask = 0;
    to_verbs(r, cur, a, mask);
    CHECK(mask == (IBV_QP_STATE | IBV_QP_TIMEOUT));
    CHECK(a.ah_attr.dlid == 0);
    CHECK(a.ah_attr.is_global == 0);
    CHECK(a.ah_attr.port_num == 0);
}

// ------------------------------------------------------------------ ModifyRequest JSON

TEST_CASE("to_json: only the members given, raw numbers, dgid as text")
{
    CHECK(to_json(ModifyRequest{}).dump() == "{}");

    ModifyRequest r;
    r.state = IBV_QPS_RTR;
    r.sl = 5;
    r.dgid = fe80_1;
    CHECK(to_json(r).dump() == R"({"state":2,"dgid":"fe80:0000:0000:0000:0000:0000:0000:0001","sl":5})");

    ModifyRequest v4;
    v4.dgid = v4_192_0_2_1;
    v4.path_mtu = IBV_MTU_1024;
    v4.path_mig_state = IBV_MIG_REARM;
    CHECK(to_json(v4).dump() ==
          R"({"path_mtu":3,"dgid":"0000:0000:0000:0000:0000:ffff:c000:0201","path_mig_state":1})");
}

TEST_CASE("to_json / modify_request_from_json round trip every member")
{
    ModifyRequest r;
    r.state = IBV_QPS_RTS;
    r.cur_state = IBV_QPS_SQD;
    r.port = 2;
    r.pkey_index = 0xffff;
    r.qkey = 0xffffffff;
    r.access = 0x10000f;
    r.path_mtu = IBV_MTU_2048;
    r.dest_qpn = 0xffffff;
    r.rq_psn = 0x123456;
    r.sq_psn = 0xfedcba;
    r.max_rd_atomic = 255;
    r.max_dest_rd_atomic = 16;
    r.min_rnr_timer = 31;
    r.timeout = 31;
    r.retry_cnt = 7;
    r.rnr_retry = 6;
    r.dgid = fe80_full;
    r.dlid = 0xffff;
    r.sl = 15;
    r.sgid_index = 255;
    r.hop_limit = 1;
    r.traffic_class = 0x8b;
    r.flow_label = 0xfffff;
    r.static_rate = 15;
    r.path_mig_state = IBV_MIG_ARMED;

    const Json j = to_json(r);
    CHECK(j.size() == 25);
    CHECK(j.at("qkey") == 4294967295u);
    CHECK(j.at("dgid") == "fe80:0000:0000:0000:5054:00ff:fe12:3456");  // the one GID text form
    CHECK(j.at("access") == 0x10000f);

    // Through text, as on the wire.
    const ModifyRequest b = modify_request_from_json(Json::parse(j.dump()));
    CHECK(b.state == IBV_QPS_RTS);
    CHECK(b.cur_state == IBV_QPS_SQD);
    CHECK(b.port == 2);
    CHECK(b.pkey_index == 0xffff);
    CHECK(b.qkey == 0xffffffffu);
    CHECK(b.access == 0x10000fu);
    CHECK(b.path_mtu == IBV_MTU_2048);
    CHECK(b.dest_qpn == 0xffffffu);
    CHECK(b.rq_psn == 0x123456u);
    CHECK(b.sq_psn == 0xfedcbau);
    CHECK(b.max_rd_atomic == 255);
    CHECK(b.max_dest_rd_atomic == 16);
    CHECK(b.min_rnr_timer == 31);
    CHECK(b.timeout == 31);
    CHECK(b.retry_cnt == 7);
    CHECK(b.rnr_retry == 6);
    REQUIRE(b.dgid.has_value());
    CHECK(*b.dgid == fe80_full);
    CHECK(b.dlid == 0xffff);
    CHECK(b.sl == 15);
    CHECK(b.sgid_index == 255);
    CHECK(b.hop_limit == 1);
    CHECK(b.traffic_class == 0x8b);
    CHECK(b.flow_label == 0xfffffu);
    CHECK(b.static_rate == 15);
    CHECK(b.path_mig_state == IBV_MIG_ARMED);

    // And nothing given comes back as nothing given.
    const ModifyRequest e = modify_request_from_json(to_json(ModifyRequest{}));
    CHECK_FALSE(e.state);
    CHECK_FALSE(e.dgid);
    CHECK_FALSE(e.has_av());
    CHECK_FALSE(e.timeout);
}

TEST_CASE("modify_request_from_json: an IPv4 dgid becomes the mapped GID")
{
    const ModifyRequest r = modify_request_from_json(Json{{"dgid", "192.0.2.1"}});
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == v4_192_0_2_1);
}

TEST_CASE("modify_request_from_json: out-of-range members are UsageErrors naming the member")
{
    struct Case {
        const char* member;
        std::uint64_t value;
        const char* expected;
    };
    const Case cases[] = {
        {"state", 8, "state: '8' is not a whole number in 0..6"},
        {"cur_state", 100, "cur_state: '100' is not a whole number in 0..6"},
        {"port", 256, "port: '256' is not a whole number in 0..255"},
        {"pkey_index", 65536, "pkey_index: '65536' is not a whole number in 0..65535"},
        {"qkey", 4294967296ull, "qkey: '4294967296' is not a whole number in 0..4294967295"},
        {"access", 4294967296ull, "access: '4294967296' is not a whole number in 0..4294967295"},
        {"path_mtu", 6, "path_mtu: '6' is not a whole number in 1..5"},
        {"dest_qpn", 16777216, "dest_qpn: '16777216' is not a whole number in 0..16777215"},
        {"rq_psn", 16777216, "rq_psn: '16777216' is not a whole number in 0..16777215"},
        {"sq_psn", 16777216, "sq_psn: '16777216' is not a whole number in 0..16777215"},
        {"max_rd_atomic", 256, "max_rd_atomic: '256' is not a whole number in 0..255"},
        {"max_dest_rd_atomic", 256, "max_dest_rd_atomic: '256' is not a whole number in 0..255"},
        {"min_rnr_timer", 32, "min_rnr_timer: '32' is not a whole number in 0..31"},
        {"timeout", 32, "timeout: '32' is not a whole number in 0..31"},
        {"retry_cnt", 8, "retry_cnt: '8' is not a whole number in 0..7"},
        {"rnr_retry", 8, "rnr_retry: '8' is not a whole number in 0..7"},
        {"dlid", 65536, "dlid: '65536' is not a whole number in 0..65535"},
        {"sl", 16, "sl: '16' is not a whole number in 0..15"},
        {"sgid_index", 256, "sgid_index: '256' is not a whole number in 0..255"},
        {"hop_limit", 256, "hop_limit: '256' is not a whole number in 0..255"},
        {"traffic_class", 256, "traffic_class: '256' is not a whole number in 0..255"},
        {"flow_label", 1048576, "flow_label: '1048576' is not a whole number in 0..1048575"},
        {"static_rate", 256, "static_rate: '256' is not a whole number in 0..255"},
        {"path_mig_state", 3, "path_mig_state: '3' is not a whole number in 0..2"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.member);
        const Json j{{c.member, c.value}};
        CHECK(thrown<UsageError>([&] { modify_request_from_json(j); }) == c.expected);
    }
}

TEST_CASE("modify_request_from_json: wrong-typed members are UsageErrors naming the member")
{
    const Json bad_values[] = {Json("5"), Json(-1), Json(1.5), Json(true), Json(nullptr), Json::array({1}),
                               Json::object()};
    for (const char* member : {"state", "port", "qkey", "sl", "timeout", "flow_label", "dest_qpn"}) {
        for (const Json& v : bad_values) {
            CAPTURE(member);
            CAPTURE(v.dump());
            const Json j{{member, v}};
            const std::string msg = thrown<UsageError>([&] { modify_request_from_json(j); });
            CHECK(starts_with(msg, std::string(member) + ": '" + v.dump() + "'"));
        }
    }
    for (const Json& v : {Json(5), Json("not-a-gid"), Json(""), Json(nullptr), Json::array({"fe80::1"})}) {
        CAPTURE(v.dump());
        const std::string msg = thrown<UsageError>([&] { modify_request_from_json(Json{{"dgid", v}}); });
        CHECK(starts_with(msg, "dgid: '" + v.dump() + "'"));
        CHECK(contains(msg, "IPv4"));
    }
}

TEST_CASE("modify_request_from_json: the lowest and highest valid values are accepted")
{
    // Parsed from text, as the holder receives it (non-negative numbers are
    // then unsigned).
    const ModifyRequest lo = modify_request_from_json(
        Json::parse(R"({"port":0,"sl":0,"timeout":0,"retry_cnt":0,"flow_label":0,"qkey":0})"));
    CHECK(lo.port == 0);
    CHECK(lo.sl == 0);
    CHECK(lo.timeout == 0);
    CHECK(lo.retry_cnt == 0);
    CHECK(lo.flow_label == 0u);
    CHECK(lo.qkey == 0u);
    CHECK(lo.has_av());
    const ModifyRequest hi = modify_request_from_json(Json::parse(
        R"({"port":255,"sl":15,"timeout":31,"retry_cnt":7,"flow_label":1048575,"qkey":4294967295,"path_mtu":5})"));
    CHECK(hi.port == 255);
    CHECK(hi.sl == 15);
    CHECK(hi.timeout == 31);
    CHECK(hi.retry_cnt == 7);
    CHECK(hi.flow_label == 1048575u);
    CHECK(hi.qkey == 4294967295u);
    CHECK(hi.path_mtu == IBV_MTU_4096);
}

// A holder request (hand-made or from another version) can carry values that
// are within the member's bit width but are no valid enum value: path_mtu 0
// (IBV_MTU_256 is 1) and state/cur_state 7 (IBV_QPS_UNKNOWN, not a state one
// can ask for). They pass straight through to ibv_modify_qp.
TEST_CASE("modify_request_from_json: path_mtu 0 is not an ibv_mtu")
{
    CHECK_THROWS_AS(modify_request_from_json(Json::parse(R"({"path_mtu":0})")), UsageError);
}

TEST_CASE("modify_request_from_json: state 7 (UNKNOWN) is not a state to move to")
{
    CHECK_THROWS_AS(modify_request_from_json(Json::parse(R"({"state":7})")), UsageError);
    CHECK_THROWS_AS(modify_request_from_json(Json::parse(R"({"cur_state":7})")), UsageError);
}

// ------------------------------------------------------------------ raw attributes JSON

TEST_CASE("qp_attr_to_json / qp_attr_from_json round trip a fully populated attribute set")
{
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    a.cur_qp_state = IBV_QPS_SQD;
    a.path_mtu = IBV_MTU_4096;
    a.path_mig_state = IBV_MIG_REARM;
    a.qkey = 0x80000001;
    a.rq_psn = 0x111111;
    a.sq_psn = 0x222222;
    a.dest_qp_num = 0xabcdef;
    a.qp_access_flags = 0x10000f;
    a.cap = {101, 102, 3, 4, 256};
    a.ah_attr.dlid = 0xbeef;
    a.ah_attr.sl = 7;
    a.ah_attr.src_path_bits = 5;
    a.ah_attr.static_rate = IBV_RATE_100_GBPS;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 2;
    std::memcpy(a.ah_attr.grh.dgid.raw, fe80_full.data(), 16);
    a.ah_attr.grh.flow_label = 0xabcde;
    a.ah_attr.grh.sgid_index = 9;
    a.ah_attr.grh.hop_limit = 33;
    a.ah_attr.grh.traffic_class = 0x8b;
    a.alt_ah_attr.dlid = 0x0102;
    a.alt_ah_attr.sl = 1;
    a.alt_ah_attr.src_path_bits = 2;
    a.alt_ah_attr.static_rate = IBV_RATE_10_GBPS;
    a.alt_ah_attr.is_global = 1;
    a.alt_ah_attr.port_num = 3;
    std::memcpy(a.alt_ah_attr.grh.dgid.raw, v4_192_0_2_1.data(), 16);
    a.alt_ah_attr.grh.flow_label = 0x1;
    a.alt_ah_attr.grh.sgid_index = 4;
    a.alt_ah_attr.grh.hop_limit = 255;
    a.alt_ah_attr.grh.traffic_class = 0x04;
    a.pkey_index = 0x7fff;
    a.alt_pkey_index = 0x0101;
    a.en_sqd_async_notify = 1;
    a.sq_draining = 1;
    a.max_rd_atomic = 16;
    a.max_dest_rd_atomic = 8;
    a.min_rnr_timer = 31;
    a.port_num = 2;
    a.timeout = 19;
    a.retry_cnt = 6;
    a.rnr_retry = 5;
    a.alt_port_num = 3;
    a.alt_timeout = 20;
    a.rate_limit = 1000000;
    ibv_qp_init_attr init{};
    init.qp_type = IBV_QPT_UC;
    init.sq_sig_all = 1;
    init.cap = {201, 202, 5, 6, 512};

    const Json j = qp_attr_to_json(a, init);
    // A few members by name, as the client and the report read them.
    CHECK(j.at("qp_state") == 3);
    CHECK(j.at("path_mtu") == 5);
    CHECK(j.at("timeout") == 19);
    CHECK(j.at("ah_attr").at("dgid") == "fe80:0000:0000:0000:5054:00ff:fe12:3456");
    CHECK(j.at("alt_ah_attr").at("dgid") == "0000:0000:0000:0000:0000:ffff:c000:0201");
    CHECK(j.at("ah_attr").at("traffic_class") == 139);
    CHECK(j.at("init").at("qp_type") == 3);
    CHECK(j.at("init").at("cap").at("max_inline_data") == 512);
    CHECK(j.at("cap").at("max_send_wr") == 101);

    ibv_qp_attr b;
    std::memset(&b, 0x5a, sizeof b);
    ibv_qp_init_attr ib{};
    qp_attr_from_json(Json::parse(j.dump()), b, ib);
    CHECK(b.qp_state == IBV_QPS_RTS);
    CHECK(b.cur_qp_state == IBV_QPS_SQD);
    CHECK(b.path_mtu == IBV_MTU_4096);
    CHECK(b.path_mig_state == IBV_MIG_REARM);
    CHECK(b.qkey == 0x80000001u);
    CHECK(b.rq_psn == 0x111111u);
    CHECK(b.sq_psn == 0x222222u);
    CHECK(b.dest_qp_num == 0xabcdefu);
    CHECK(b.qp_access_flags == 0x10000fu);
    CHECK(b.cap.max_send_wr == 101u);
    CHECK(b.cap.max_recv_wr == 102u);
    CHECK(b.cap.max_send_sge == 3u);
    CHECK(b.cap.max_recv_sge == 4u);
    CHECK(b.cap.max_inline_data == 256u);
    CHECK(b.ah_attr.dlid == 0xbeef);
    CHECK(b.ah_attr.sl == 7);
    CHECK(b.ah_attr.src_path_bits == 5);
    CHECK(b.ah_attr.static_rate == IBV_RATE_100_GBPS);
    CHECK(b.ah_attr.is_global == 1);
    CHECK(b.ah_attr.port_num == 2);
    CHECK(raw_of(b.ah_attr.grh.dgid) == fe80_full);
    CHECK(b.ah_attr.grh.flow_label == 0xabcdeu);
    CHECK(b.ah_attr.grh.sgid_index == 9);
    CHECK(b.ah_attr.grh.hop_limit == 33);
    CHECK(b.ah_attr.grh.traffic_class == 0x8b);
    CHECK(b.alt_ah_attr.dlid == 0x0102);
    CHECK(b.alt_ah_attr.sl == 1);
    CHECK(b.alt_ah_attr.src_path_bits == 2);
    CHECK(b.alt_ah_attr.static_rate == IBV_RATE_10_GBPS);
    CHECK(b.alt_ah_attr.is_global == 1);
    CHECK(b.alt_ah_attr.port_num == 3);
    CHECK(raw_of(b.alt_ah_attr.grh.dgid) == v4_192_0_2_1);
    CHECK(b.alt_ah_attr.grh.flow_label == 1u);
    CHECK(b.alt_ah_attr.grh.sgid_index == 4);
    CHECK(b.alt_ah_attr.grh.hop_limit == 255);
    CHECK(b.alt_ah_attr.grh.traffic_class == 4);
    CHECK(b.pkey_index == 0x7fff);
    CHECK(b.alt_pkey_index == 0x0101);
    CHECK(b.en_sqd_async_notify == 1);
    CHECK(b.sq_draining == 1);
    CHECK(b.max_rd_atomic == 16);
    CHECK(b.max_dest_rd_atomic == 8);
    CHECK(b.min_rnr_timer == 31);
    CHECK(b.port_num == 2);
    CHECK(b.timeout == 19);
    CHECK(b.retry_cnt == 6);
    CHECK(b.rnr_retry == 5);
    CHECK(b.alt_port_num == 3);
    CHECK(b.alt_timeout == 20);
    CHECK(b.rate_limit == 1000000u);
    CHECK(ib.qp_type == IBV_QPT_UC);
    CHECK(ib.sq_sig_all == 1);
    CHECK(ib.cap.max_send_wr == 201u);
    CHECK(ib.cap.max_recv_wr == 202u);
    CHECK(ib.cap.max_send_sge == 5u);
    CHECK(ib.cap.max_recv_sge == 6u);
    CHECK(ib.cap.max_inline_data == 512u);
    CHECK(ib.send_cq == nullptr);
    CHECK(ib.recv_cq == nullptr);
    CHECK(ib.srq == nullptr);
}

TEST_CASE("qp_attr_to_json / qp_attr_from_json round trip an all-zero attribute set")
{
    const ibv_qp_attr a{};
    ibv_qp_init_attr init{};
    init.qp_type = IBV_QPT_RC;
    const Json j = qp_attr_to_json(a, init);
    CHECK(j.at("ah_attr").at("dgid") == "0000:0000:0000:0000:0000:0000:0000:0000");
    ibv_qp_attr b;
    std::memset(&b, 0x5a, sizeof b);
    ibv_qp_init_attr ib{};
    qp_attr_from_json(j, b, ib);
    // Every member written back as 0 over the 0x5a filling.
    CHECK(b.qp_state == 0);
    CHECK(b.qkey == 0u);
    CHECK(b.dest_qp_num == 0u);
    CHECK(b.cap.max_inline_data == 0u);
    CHECK(b.ah_attr.is_global == 0);
    CHECK(raw_of(b.ah_attr.grh.dgid) == Gid{});
    CHECK(b.ah_attr.grh.flow_label == 0u);
    CHECK(raw_of(b.alt_ah_attr.grh.dgid) == Gid{});
    CHECK(b.timeout == 0);
    CHECK(b.rate_limit == 0u);
    CHECK(ib.qp_type == IBV_QPT_RC);
}

// ------------------------------------------------------------------ parse_gid

TEST_CASE("parse_gid: IPv6 forms and IPv4 addresses; anything else is nullopt")
{
    auto g = parse_gid("fe80::1");
    REQUIRE(g.has_value());
    CHECK(*g == fe80_1);

    g = parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:3456");
    REQUIRE(g.has_value());
    CHECK(*g == fe80_full);

    g = parse_gid("FE80::5054:FF:FE12:3456");
    REQUIRE(g.has_value());
    CHECK(*g == fe80_full);

    g = parse_gid("::ffff:192.0.2.1");
    REQUIRE(g.has_value());
    CHECK(*g == v4_192_0_2_1);

    g = parse_gid("192.0.2.1");
    REQUIRE(g.has_value());
    CHECK(*g == v4_192_0_2_1);

    g = parse_gid("::");
    REQUIRE(g.has_value());
    CHECK(*g == Gid{});

    g = parse_gid("10.255.0.7");
    REQUIRE(g.has_value());
    CHECK(*g == Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 255, 0, 7});

    for (const char* bad : {"", "fe80::1::2", "fe80::g", "192.0.2", "192.0.2.256", "1.2.3.4.5", " fe80::1",
                            "fe80::1 ", "fe80:0:0:0:0:0:0:0:1", "gid", "0x1234"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_gid(bad).has_value());
    }
}
