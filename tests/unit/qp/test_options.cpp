// `qp modify` / `qp create --to` attribute flags: text -> ModifyRequest.
// Expected values are written out from the IB spec / libibverbs headers, not
// recomputed with src/.
#include <array>
#include <cstdint>
#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "commands/qp/flags.hpp"
#include "src/qp/options.hpp"
#include "unit/util.hpp"

using namespace qps::qp;
using qps::commands::ModifyFlags;
using qps::commands::PostFlags;
using qps::commands::parse_modify_flags;
using qps::commands::parse_post_flags;
using qps::UsageError;

using qps::test::contains;
using qps::test::thrown;
namespace {

// The message of the exception of type E that f() throws; "<nothing thrown>"
// otherwise (another exception type propagates and fails the test).
using Gid = std::array<std::uint8_t, 16>;

}  // namespace

// ------------------------------------------------------------------ parse_uint

TEST_CASE("parse_uint: decimal and 0x hex within the range")
{
    CHECK(parse_uint("26", "--x", 0, 100) == 26);
    CHECK(parse_uint("0", "--x", 0, 100) == 0);
    CHECK(parse_uint("100", "--x", 0, 100) == 100);
    CHECK(parse_uint("0x1a", "--x", 0, 100) == 26);
    CHECK(parse_uint("0X1A", "--x", 0, 100) == 26);
    CHECK(parse_uint("0x0", "--x", 0, 100) == 0);
    CHECK(parse_uint("007", "--x", 0, 100) == 7);
    CHECK(parse_uint("18446744073709551615", "--x", 0, UINT64_MAX) == UINT64_MAX);
    CHECK(parse_uint("0xffffffffffffffff", "--x", 0, UINT64_MAX) == UINT64_MAX);
    CHECK(parse_uint("5", "--x", 5, 5) == 5);
}

TEST_CASE("parse_uint: out of range, junk and empty are UsageErrors naming the flag and the value")
{
    CHECK(thrown<UsageError>([] { parse_uint("16", "--sl", 0, 15); }) ==
          "--sl '16': expected a whole number in 0..15 (decimal or 0x hex)");
    CHECK(thrown<UsageError>([] { parse_uint("4", "--lo", 5, 9); }) ==
          "--lo '4': expected a whole number in 5..9 (decimal or 0x hex)");
    CHECK(thrown<UsageError>([] { parse_uint("0x10", "--hex", 0, 15); }) ==
          "--hex '0x10': expected a whole number in 0..15 (decimal or 0x hex)");
    CHECK(thrown<UsageError>([] { parse_uint("", "--empty", 0, 15); }) ==
          "--empty '': expected a whole number in 0..15 (decimal or 0x hex)");

    // Junk of every kind: each message names the flag and repeats the text.
    for (const char* junk : {"abc", "12abc", "0x", "0x1g", "0xx1", "-1", "+5", " 5", "5 ", "1.5", "1e3", "0b101",
                             "18446744073709551616", "0x10000000000000000", "٣"}) {
        CAPTURE(junk);
        const std::string msg = thrown<UsageError>([&] { parse_uint(junk, "--junk", 0, UINT64_MAX); });
        CHECK(contains(msg, "--junk"));
        CHECK(contains(msg, std::string("'") + junk + "'"));
    }
}

TEST_CASE("parse_qpn: 24 bits, decimal or hex; the error names `what`")
{
    CHECK(parse_qpn("0") == 0u);
    CHECK(parse_qpn("26") == 26u);
    CHECK(parse_qpn("0x1a") == 26u);
    CHECK(parse_qpn("0xffffff") == 16777215u);
    CHECK(parse_qpn("16777215") == 16777215u);
    CHECK(thrown<UsageError>([] { parse_qpn("0x1000000"); }) ==
          "QPN '0x1000000': expected a whole number in 0..16777215 (decimal or 0x hex)");
    CHECK(thrown<UsageError>([] { parse_qpn("16777216", "--dest-qpn"); }) ==
          "--dest-qpn '16777216': expected a whole number in 0..16777215 (decimal or 0x hex)");
    CHECK(contains(thrown<UsageError>([] { parse_qpn("qp7", "--qpn"); }), "--qpn 'qp7'"));
}

// ------------------------------------------------------------------ parse_state

TEST_CASE("parse_state: every state, any case")
{
    struct Case {
        const char* text;
        ibv_qp_state state;
    };
    const Case cases[] = {
        {"reset", IBV_QPS_RESET}, {"RESET", IBV_QPS_RESET}, {"Reset", IBV_QPS_RESET},
        {"init", IBV_QPS_INIT},   {"INIT", IBV_QPS_INIT},   {"iNiT", IBV_QPS_INIT},
        {"rtr", IBV_QPS_RTR},     {"RTR", IBV_QPS_RTR},     {"Rtr", IBV_QPS_RTR},
        {"rts", IBV_QPS_RTS},     {"RTS", IBV_QPS_RTS},     {"rTs", IBV_QPS_RTS},
        {"sqd", IBV_QPS_SQD},     {"SQD", IBV_QPS_SQD},     {"Sqd", IBV_QPS_SQD},
        {"sqe", IBV_QPS_SQE},     {"SQE", IBV_QPS_SQE},     {"sqE", IBV_QPS_SQE},
        {"err", IBV_QPS_ERR},     {"ERR", IBV_QPS_ERR},     {"Err", IBV_QPS_ERR},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CHECK(parse_state(c.text, "--state") == c.state);
    }
    // The libibverbs values themselves, spelled out.
    CHECK(parse_state("reset", "--state") == 0);
    CHECK(parse_state("init", "--state") == 1);
    CHECK(parse_state("rtr", "--state") == 2);
    CHECK(parse_state("rts", "--state") == 3);
    CHECK(parse_state("sqd", "--state") == 4);
    CHECK(parse_state("sqe", "--state") == 5);
    CHECK(parse_state("err", "--state") == 6);
}

TEST_CASE("parse_state: a bad state names the flag, the value and every valid state")
{
    CHECK(thrown<UsageError>([] { parse_state("ready", "--state"); }) ==
          "--state 'ready': valid states are reset, init, rtr, rts, sqd, sqe, err");
    CHECK(thrown<UsageError>([] { parse_state("", "--to"); }) ==
          "--to '': valid states are reset, init, rtr, rts, sqd, sqe, err");
    // No prefixes, no surrounding spaces, no numbers, no "unknown".
    for (const char* bad : {"rt", "rts ", " rts", "3", "unknown", "error"}) {
        CAPTURE(bad);
        const std::string msg = thrown<UsageError>([&] { parse_state(bad, "--cur-state"); });
        CHECK(contains(msg, std::string("--cur-state '") + bad + "'"));
        CHECK(contains(msg, "reset, init, rtr, rts, sqd, sqe, err"));
    }
}

TEST_CASE("parse_qp_type: rc, uc, ud in any case; anything else names the transport, in words (the command line spells it)")
{
    CHECK(parse_qp_type("rc") == IBV_QPT_RC);
    CHECK(parse_qp_type("RC") == IBV_QPT_RC);
    CHECK(parse_qp_type("uc") == IBV_QPT_UC);
    CHECK(parse_qp_type("Uc") == IBV_QPT_UC);
    CHECK(parse_qp_type("ud") == IBV_QPT_UD);
    CHECK(parse_qp_type("uD") == IBV_QPT_UD);
    CHECK(parse_qp_type("rc") == 2);
    CHECK(parse_qp_type("uc") == 3);
    CHECK(parse_qp_type("ud") == 4);
    CHECK(thrown<UsageError>([] { parse_qp_type("xrc"); }) == "the transport 'xrc': valid types are rc, uc, ud, xrc-send, xrc-recv");
    CHECK(thrown<UsageError>([] { parse_qp_type(""); }) == "the transport '': valid types are rc, uc, ud, xrc-send, xrc-recv");
    try {
        parse_qp_type("raw_packet");
        FAIL("raw_packet was taken");
    } catch (const UsageError& e) {
        CHECK(e.naming([](qps::Given g) { return g == qps::Given::transport ? std::string("--transport") : "?"; }) ==
              "--transport 'raw_packet': valid types are rc, uc, ud, xrc-send, xrc-recv");
    }
}

// ------------------------------------------------------------------ parse_modify_flags

TEST_CASE("parse_modify_flags: no flags give an empty request and no notes")
{
    const ParsedModify p = parse_modify_flags(ModifyFlags{});
    const ModifyRequest& r = p.request;
    CHECK(p.notes.empty());
    CHECK_FALSE(r.state);
    CHECK_FALSE(r.cur_state);
    CHECK_FALSE(r.port);
    CHECK_FALSE(r.pkey_index);
    CHECK_FALSE(r.qkey);
    CHECK_FALSE(r.access);
    CHECK_FALSE(r.path_mtu);
    CHECK_FALSE(r.dest_qpn);
    CHECK_FALSE(r.rq_psn);
    CHECK_FALSE(r.sq_psn);
    CHECK_FALSE(r.max_rd_atomic);
    CHECK_FALSE(r.max_dest_rd_atomic);
    CHECK_FALSE(r.min_rnr_timer);
    CHECK_FALSE(r.timeout);
    CHECK_FALSE(r.retry_cnt);
    CHECK_FALSE(r.rnr_retry);
    CHECK_FALSE(r.dgid);
    CHECK_FALSE(r.path_mig_state);
    CHECK_FALSE(r.has_av());
}

TEST_CASE("parse_modify_flags: every numeric flag lands in its field")
{
    ModifyFlags f;
    f.state = "RTR";
    f.cur_state = "init";
    f.port = "2";
    f.pkey_index = "0x3";
    f.qkey = "0x11111111";
    f.dest_qpn = "0xabcdef";
    f.rq_psn = "0xffffff";
    f.sq_psn = "100";
    f.max_rd_atomic = "16";
    f.max_dest_rd_atomic = "255";
    f.retry_cnt = "7";
    f.rnr_retry = "0";
    f.dlid = "0xffff";
    f.sl = "15";
    f.sgid_index = "255";
    f.hop_limit = "64";
    f.traffic_class = "0x8b";
    f.flow_label = "0xfffff";
    f.static_rate = "15";
    const ParsedModify p = parse_modify_flags(f);
    const ModifyRequest& r = p.request;
    CHECK(p.notes.empty());
    CHECK(r.state == IBV_QPS_RTR);
    CHECK(r.cur_state == IBV_QPS_INIT);
    CHECK(r.port == 2);
    CHECK(r.pkey_index == 3);
    CHECK(r.qkey == 0x11111111u);
    CHECK(r.dest_qpn == 0xabcdefu);
    CHECK(r.rq_psn == 0xffffffu);
    CHECK(r.sq_psn == 100u);
    CHECK(r.max_rd_atomic == 16);
    CHECK(r.max_dest_rd_atomic == 255);
    CHECK(r.retry_cnt == 7);
    CHECK(r.rnr_retry == 0);
    CHECK(r.dlid == 0xffff);
    CHECK(r.sl == 15);
    CHECK(r.sgid_index == 255);
    CHECK(r.hop_limit == 64);
    CHECK(r.traffic_class == 139);
    CHECK(r.flow_label == 1048575u);
    CHECK(r.static_rate == 15);
    CHECK(r.has_av());
}

TEST_CASE("parse_modify_flags: --qkey takes all 32 bits")
{
    ModifyFlags f;
    f.qkey = "0xffffffff";
    CHECK(parse_modify_flags(f).request.qkey == 0xffffffffu);
    f.qkey = "4294967295";
    CHECK(parse_modify_flags(f).request.qkey == 0xffffffffu);
    f.qkey = "0";
    CHECK(parse_modify_flags(f).request.qkey == 0u);
    f.qkey = "0x100000000";
    CHECK(thrown<UsageError>([&] { parse_modify_flags(f); }) ==
          "--qkey '0x100000000': expected a whole number in 0..4294967295 (decimal or 0x hex)");
}

TEST_CASE("parse_modify_flags: --access names become the IBV_ACCESS mask")
{
    struct Case {
        const char* text;
        unsigned mask;
    };
    // Bit values from verbs.h's enum ibv_access_flags.
    const Case cases[] = {
        {"local_write", 0x1},
        {"remote_write", 0x2},
        {"remote_read", 0x4},
        {"remote_atomic", 0x8},
        {"mw_bind", 0x10},
        {"zero_based", 0x20},
        {"on_demand", 0x40},
        {"hugetlb", 0x80},
        {"relaxed_ordering", 0x100000},
        {"local_write,remote_write,remote_read", 0x7},
        {"LOCAL-WRITE, Remote_Read", 0x5},
        {"remote_atomic,remote_atomic", 0x8},
        {"none", 0},
        {"", 0},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        ModifyFlags f;
        f.access = c.text;
        const ParsedModify p = parse_modify_flags(f);
        REQUIRE(p.request.access.has_value());
        CHECK(*p.request.access == c.mask);
        CHECK(p.notes.empty());
    }
    ModifyFlags f;
    f.access = "local_write,bogus";
    const std::string msg = thrown<UsageError>([&] { parse_modify_flags(f); });
    CHECK(contains(msg, "'bogus'"));
    CHECK(contains(msg, "local_write"));
    CHECK(contains(msg, "relaxed_ordering"));
    f.access = "local_write,,remote_read";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(f); }), "empty access flag"));
}

TEST_CASE("parse_modify_flags: --mtu in bytes becomes ibv_mtu")
{
    struct Case {
        const char* text;
        ibv_mtu mtu;
        int raw;
    };
    const Case cases[] = {
        {"256", IBV_MTU_256, 1}, {"512", IBV_MTU_512, 2},   {"1024", IBV_MTU_1024, 3},
        {"2048", IBV_MTU_2048, 4}, {"4096", IBV_MTU_4096, 5},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        ModifyFlags f;
        f.mtu = c.text;
        const auto r = parse_modify_flags(f).request;
        REQUIRE(r.path_mtu.has_value());
        CHECK(*r.path_mtu == c.mtu);
        CHECK(static_cast<int>(*r.path_mtu) == c.raw);
    }
    for (const char* bad : {"1000", "3", "9000", "0x400", "", "1k"}) {
        CAPTURE(bad);
        ModifyFlags f;
        f.mtu = bad;
        const std::string msg = thrown<UsageError>([&] { parse_modify_flags(f); });
        CHECK(contains(msg, std::string("'") + bad + "'"));
        CHECK(contains(msg, "256, 512, 1024, 2048, 4096"));
    }
}

TEST_CASE("parse_modify_flags: --qp-timeout as a duration or a code")
{
    ModifyFlags f;
    f.timeout = "67ms";
    ParsedModify p = parse_modify_flags(f);
    CHECK(p.request.timeout == 14);
    REQUIRE(p.notes.size() == 1);
    CHECK(p.notes[0] == "67ms → code 14 (67.109 ms)");

    f.timeout = "14";
    p = parse_modify_flags(f);
    CHECK(p.request.timeout == 14);
    CHECK(p.notes.empty());

    f.timeout = "0";
    p = parse_modify_flags(f);
    CHECK(p.request.timeout == 0);
    CHECK(p.notes.empty());

    f.timeout = "31";
    CHECK(parse_modify_flags(f).request.timeout == 31);

    // 4.096 µs × 2^t: 0.5 s is nearest to t = 17 (536.871 ms).
    f.timeout = "0.5s";
    p = parse_modify_flags(f);
    CHECK(p.request.timeout == 17);
    CHECK(p.notes.size() == 1);

    f.timeout = "infinite";
    p = parse_modify_flags(f);
    CHECK(p.request.timeout == 0);

    for (const char* bad : {"32", "fast", "-1", "1h"}) {
        CAPTURE(bad);
        f.timeout = bad;
        const std::string msg = thrown<UsageError>([&] { parse_modify_flags(f); });
        CHECK(contains(msg, "timeout"));
        CHECK(contains(msg, bad));
    }
}

TEST_CASE("parse_modify_flags: --min-rnr-timer as a duration or a code")
{
    ModifyFlags f;
    f.min_rnr_timer = "12";
    ParsedModify p = parse_modify_flags(f);
    CHECK(p.request.min_rnr_timer == 12);
    CHECK(p.notes.empty());

    // The spec's table: code 14 is 1.28 ms, code 12 is 0.64 ms, code 0 655.36 ms.
    f.min_rnr_timer = "1.28ms";
    p = parse_modify_flags(f);
    CHECK(p.request.min_rnr_timer == 14);
    REQUIRE(p.notes.size() == 1);
    CHECK(p.notes[0] == "1.28ms → code 14 (1.28 ms)");

    f.min_rnr_timer = "640us";
    CHECK(parse_modify_flags(f).request.min_rnr_timer == 12);
    f.min_rnr_timer = "655.36ms";
    CHECK(parse_modify_flags(f).request.min_rnr_timer == 0);

    f.min_rnr_timer = "infinite";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(f); }), "rnr-retry 7"));
    f.min_rnr_timer = "32";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(f); }), "32"));

    // Both durations: two notes, the RNR timer's first.
    f.min_rnr_timer = "1.28ms";
    f.timeout = "67ms";
    p = parse_modify_flags(f);
    REQUIRE(p.notes.size() == 2);
    CHECK(p.notes[0] == "1.28ms → code 14 (1.28 ms)");
    CHECK(p.notes[1] == "67ms → code 14 (67.109 ms)");
}

TEST_CASE("parse_modify_flags: --dgid in IPv6 form or as IPv4 (its mapped GID)")
{
    ModifyFlags f;
    f.dgid = "fe80::1";
    auto r = parse_modify_flags(f).request;
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == Gid{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01});
    CHECK(r.has_av());

    f.dgid = "fe80:0000:0000:0000:5054:00ff:fe12:3456";
    r = parse_modify_flags(f).request;
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == Gid{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56});

    f.dgid = "192.0.2.1";
    r = parse_modify_flags(f).request;
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1});

    f.dgid = "::ffff:192.0.2.1";
    r = parse_modify_flags(f).request;
    REQUIRE(r.dgid.has_value());
    CHECK(*r.dgid == Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1});

    for (const char* bad : {"fe80::zz", "", "192.0.2", "192.0.2.256", "fe80::1::2", "peer"}) {
        CAPTURE(bad);
        f.dgid = bad;
        const std::string msg = thrown<UsageError>([&] { parse_modify_flags(f); });
        CHECK(contains(msg, std::string("--dgid '") + bad + "'"));
        CHECK(contains(msg, "IPv4"));
    }
}

TEST_CASE("parse_modify_flags: --path-mig-state names, any case")
{
    ModifyFlags f;
    f.path_mig_state = "migrated";
    CHECK(parse_modify_flags(f).request.path_mig_state == IBV_MIG_MIGRATED);
    f.path_mig_state = "REARM";
    CHECK(parse_modify_flags(f).request.path_mig_state == IBV_MIG_REARM);
    f.path_mig_state = "Armed";
    CHECK(parse_modify_flags(f).request.path_mig_state == IBV_MIG_ARMED);
    CHECK(IBV_MIG_MIGRATED == 0);
    CHECK(IBV_MIG_REARM == 1);
    CHECK(IBV_MIG_ARMED == 2);
    f.path_mig_state = "moved";
    CHECK(thrown<UsageError>([&] { parse_modify_flags(f); }) ==
          "--path-mig-state 'moved': valid states are migrated, rearm, armed");
    f.path_mig_state = "1";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(f); }), "--path-mig-state '1'"));
}

TEST_CASE("parse_modify_flags: range errors name the flag, the value and the range")
{
    struct Case {
        std::optional<std::string> ModifyFlags::*field;
        const char* value;
        const char* expected;
    };
    const Case cases[] = {
        {&ModifyFlags::sl, "16", "--sl '16': expected a whole number in 0..15 (decimal or 0x hex)"},
        {&ModifyFlags::retry_cnt, "8", "--retry-cnt '8': expected a whole number in 0..7 (decimal or 0x hex)"},
        {&ModifyFlags::rnr_retry, "8", "--rnr-retry '8': expected a whole number in 0..7 (decimal or 0x hex)"},
        {&ModifyFlags::flow_label, "0x100000",
         "--flow-label '0x100000': expected a whole number in 0..1048575 (decimal or 0x hex)"},
        {&ModifyFlags::port, "0", "--ib-port '0': expected a whole number in 1..255 (decimal or 0x hex)"},
        {&ModifyFlags::port, "256", "--ib-port '256': expected a whole number in 1..255 (decimal or 0x hex)"},
        {&ModifyFlags::pkey_index, "65536",
         "--pkey-index '65536': expected a whole number in 0..65535 (decimal or 0x hex)"},
        {&ModifyFlags::dest_qpn, "0x1000000",
         "--dest-qpn '0x1000000': expected a whole number in 0..16777215 (decimal or 0x hex)"},
        {&ModifyFlags::rq_psn, "16777216",
         "--rq-psn '16777216': expected a whole number in 0..16777215 (decimal or 0x hex)"},
        {&ModifyFlags::sq_psn, "0x1000000",
         "--sq-psn '0x1000000': expected a whole number in 0..16777215 (decimal or 0x hex)"},
        {&ModifyFlags::max_rd_atomic, "256",
         "--max-rd-atomic '256': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::max_dest_rd_atomic, "256",
         "--max-dest-rd-atomic '256': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::dlid, "65536", "--dlid '65536': expected a whole number in 0..65535 (decimal or 0x hex)"},
        {&ModifyFlags::sgid_index, "256",
         "--gid-index '256': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::hop_limit, "256",
         "--hop-limit '256': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::traffic_class, "0x100",
         "--tclass '0x100': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::static_rate, "256",
         "--static-rate '256': expected a whole number in 0..255 (decimal or 0x hex)"},
        {&ModifyFlags::sl, "five", "--sl 'five': expected a whole number in 0..15 (decimal or 0x hex)"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.expected);
        ModifyFlags f;
        f.*c.field = c.value;
        CHECK(thrown<UsageError>([&] { parse_modify_flags(f); }) == c.expected);
    }
}

TEST_CASE("parse_modify_flags: --state and --cur-state errors name their own flag")
{
    ModifyFlags f;
    f.state = "ready";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(f); }), "--state 'ready'"));
    ModifyFlags g;
    g.cur_state = "ready";
    CHECK(contains(thrown<UsageError>([&] { parse_modify_flags(g); }), "--cur-state 'ready'"));
}

TEST_CASE("parse_modify_flags: any address-vector flag alone makes has_av() true")
{
    std::optional<std::string> ModifyFlags::*av_fields[] = {
        &ModifyFlags::dlid,      &ModifyFlags::sl,            &ModifyFlags::sgid_index, &ModifyFlags::hop_limit,
        &ModifyFlags::traffic_class, &ModifyFlags::flow_label, &ModifyFlags::static_rate,
    };
    for (auto field : av_fields) {
        ModifyFlags f;
        f.*field = "1";
        CHECK(parse_modify_flags(f).request.has_av());
    }
    ModifyFlags f;
    f.dgid = "fe80::1";
    CHECK(parse_modify_flags(f).request.has_av());
    // Non-AV flags do not.
    ModifyFlags g;
    g.port = "1";
    g.timeout = "14";
    g.dest_qpn = "5";
    CHECK_FALSE(parse_modify_flags(g).request.has_av());
}
