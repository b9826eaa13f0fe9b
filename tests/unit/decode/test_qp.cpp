#include <cmath>
#include <cstdint>
#include <doctest/doctest.h>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"

using namespace qps::decode;

TEST_CASE("QP state: every value and an unknown one")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "RESET"}, {1, "INIT"}, {2, "RTR"}, {3, "RTS"},
        {4, "SQD"},   {5, "SQE"},  {6, "ERR"}, {7, "UNKNOWN"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(qp_state(raw).name == name);
        CHECK(qp_state(raw).known);
    }
    CHECK_FALSE(qp_state(8).known);
    CHECK(qp_state(8).name == "UNKNOWN(0x8)");
}

TEST_CASE("QP type: every value and unknown ones")
{
    const std::vector<std::pair<int, std::string>> expect{
        {2, "RC"}, {3, "UC"}, {4, "UD"}, {8, "RAW_PACKET"}, {9, "XRC_SEND"}, {10, "XRC_RECV"}, {255, "DRIVER"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(qp_type(raw).name == name);
    }
    for (int raw : {0, 1, 5, 6, 7, 11, 254}) {
        CAPTURE(raw);
        CHECK_FALSE(qp_type(raw).known);
    }
}

TEST_CASE("a QP type's word comes from the one table of names; the created types are parsed from it")
{
    CHECK(qp_type_word(IBV_QPT_RC) == "rc");
    CHECK(qp_type_word(IBV_QPT_XRC_SEND) == "xrc-send");
    CHECK(qp_type_word(IBV_QPT_RAW_PACKET) == "raw-packet");
    CHECK(qp_type_word(77).empty());
    CHECK(created_qp_type_words() == std::vector<std::string>{"rc", "uc", "ud", "xrc-send", "xrc-recv"});
    CHECK(created_qp_type("rc") == IBV_QPT_RC);
    CHECK(created_qp_type("Uc") == IBV_QPT_UC);
    CHECK(created_qp_type("UD") == IBV_QPT_UD);
    CHECK(created_qp_type("xrc-send") == IBV_QPT_XRC_SEND);
    CHECK(created_qp_type("XRC-RECV") == IBV_QPT_XRC_RECV);
    // Named, but not created by qpscope (yet): refused.
    CHECK_FALSE(created_qp_type("raw-packet"));
    CHECK_FALSE(created_qp_type("xrc"));  // a test's word, not a QP type
    CHECK_FALSE(created_qp_type(""));
    CHECK_FALSE(created_qp_type("rcx"));
}

TEST_CASE("a test's transports: rc, uc, ud, and xrc for the sender's XRC_SEND (perftest's -c XRC)")
{
    CHECK(link_qp_type_words() == std::vector<std::string>{"rc", "uc", "ud", "xrc"});
    CHECK(link_qp_type_word(IBV_QPT_XRC_SEND) == "xrc");
    CHECK(link_qp_type_word(IBV_QPT_RC) == "rc");
    CHECK(link_qp_type("XRC") == IBV_QPT_XRC_SEND);
    CHECK(link_qp_type("ud") == IBV_QPT_UD);
    CHECK_FALSE(link_qp_type("xrc-send"));
    CHECK_FALSE(link_qp_type("xrc-recv"));
    CHECK(is_xrc(IBV_QPT_XRC_SEND));
    CHECK(is_xrc(IBV_QPT_XRC_RECV));
    CHECK_FALSE(is_xrc(IBV_QPT_RC));
}

TEST_CASE("path migration state")
{
    CHECK(mig_state(0).name == "MIGRATED");
    CHECK(mig_state(1).name == "REARM");
    CHECK(mig_state(2).name == "ARMED");
    CHECK_FALSE(mig_state(3).known);
}

TEST_CASE("access flags: every bit by name, unknown bits kept")
{
    const std::vector<std::pair<std::uint64_t, std::string>> expect{
        {1u << 0, "LOCAL_WRITE"}, {1u << 1, "REMOTE_WRITE"}, {1u << 2, "REMOTE_READ"},
        {1u << 3, "REMOTE_ATOMIC"}, {1u << 4, "MW_BIND"},     {1u << 5, "ZERO_BASED"},
        {1u << 6, "ON_DEMAND"},    {1u << 7, "HUGETLB"},     {1u << 20, "RELAXED_ORDERING"}};
    for (const auto& [bit, name] : expect) {
        CAPTURE(name);
        const Flags f = access_flags(bit);
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
        CHECK(f.unknown == 0);
    }
    const Flags f = access_flags((1u << 0) | (1u << 2) | (1u << 8));
    REQUIRE(f.names.size() == 2);
    CHECK(f.names[0] == "LOCAL_WRITE");
    CHECK(f.names[1] == "REMOTE_READ");
    CHECK(f.unknown == (1u << 8));
}

TEST_CASE("parse_access: names, case, dashes, spaces, none")
{
    auto p = parse_access("local_write,remote_read");
    REQUIRE(p.ok);
    CHECK(p.value == 0x5);
    p = parse_access(" LOCAL_WRITE , Remote-Write ");
    REQUIRE(p.ok);
    CHECK(p.value == 0x3);
    p = parse_access("remote_atomic,mw_bind,zero_based,on_demand,hugetlb,relaxed_ordering");
    REQUIRE(p.ok);
    CHECK(p.value == (0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100000));
    p = parse_access("");
    REQUIRE(p.ok);
    CHECK(p.value == 0);
    p = parse_access("none");
    REQUIRE(p.ok);
    CHECK(p.value == 0);
}

TEST_CASE("parse_access: a bad word is named with the valid names")
{
    auto p = parse_access("local_write,remote_wirte");
    CHECK_FALSE(p.ok);
    CHECK(p.error ==
          "unknown access flag 'remote_wirte'; valid: local_write, remote_write, remote_read, "
          "remote_atomic, mw_bind, zero_based, on_demand, hugetlb, relaxed_ordering");
    p = parse_access("local_write,,remote_read");
    CHECK_FALSE(p.ok);
    CHECK(p.error.rfind("empty access flag in 'local_write,,remote_read'; valid: local_write,", 0) == 0);
}

TEST_CASE("QP attribute mask: every bit with its verbs name and option name")
{
    const std::vector<std::tuple<std::uint32_t, std::string, std::string>> expect{
        {1u << 0, "STATE", "state"},
        {1u << 1, "CUR_STATE", "cur-state"},
        {1u << 2, "EN_SQD_ASYNC_NOTIFY", "sqd-async-notify"},
        {1u << 3, "ACCESS_FLAGS", "access"},
        {1u << 4, "PKEY_INDEX", "pkey-index"},
        {1u << 5, "PORT", "port"},
        {1u << 6, "QKEY", "qkey"},
        {1u << 7, "AV", "address vector (dlid/dgid/sl/...)"},
        {1u << 8, "PATH_MTU", "mtu"},
        {1u << 9, "TIMEOUT", "timeout"},
        {1u << 10, "RETRY_CNT", "retry-cnt"},
        {1u << 11, "RNR_RETRY", "rnr-retry"},
        {1u << 12, "RQ_PSN", "rq-psn"},
        {1u << 13, "MAX_QP_RD_ATOMIC", "max-rd-atomic"},
        {1u << 14, "ALT_PATH", "alternate path (alt-dlid/alt-port/alt-timeout/...)"},
        {1u << 15, "MIN_RNR_TIMER", "min-rnr-timer"},
        {1u << 16, "SQ_PSN", "sq-psn"},
        {1u << 17, "MAX_DEST_RD_ATOMIC", "max-dest-rd-atomic"},
        {1u << 18, "PATH_MIG_STATE", "path-mig-state"},
        {1u << 19, "CAP", "caps (max-send-wr/max-recv-wr/...)"},
        {1u << 20, "DEST_QPN", "dest-qpn"},
        {1u << 25, "RATE_LIMIT", "rate-limit"},
    };
    for (const auto& [bit, name, option] : expect) {
        CAPTURE(name);
        const Flags f = qp_attr_mask(bit);
        REQUIRE(f.names.size() == 1);
        CHECK(f.names[0] == name);
        CHECK(qp_attr_option(bit) == option);
    }
    // Bits 21-24 were kernel-only (SMAC, VID, ...) and never exposed.
    for (unsigned b : {21u, 22u, 23u, 24u, 26u}) {
        CAPTURE(b);
        CHECK(qp_attr_mask(1u << b).unknown == (1u << b));
        CHECK_FALSE(qp_attr_option(1u << b).has_value());
    }
    const auto opts = qp_attr_options((1u << 20) | (1u << 12) | (1u << 21));
    REQUIRE(opts.size() == 3);
    CHECK(opts[0] == "rq-psn");
    CHECK(opts[1] == "dest-qpn");
    CHECK(opts[2] == "0x200000");
}

TEST_CASE("path MTU: enum to bytes and bytes to enum")
{
    const std::vector<std::pair<int, double>> expect{{1, 256}, {2, 512}, {3, 1024}, {4, 2048}, {5, 4096}};
    for (const auto& [raw, bytes] : expect) {
        CAPTURE(raw);
        CHECK(path_mtu(raw).value == bytes);
        CHECK(path_mtu(raw).unit == "bytes");
    }
    CHECK_FALSE(path_mtu(0).known);
    CHECK_FALSE(path_mtu(6).known);

    const std::vector<std::pair<std::string, std::uint32_t>> parse{
        {"256", 1}, {"512", 2}, {"1024", 3}, {"2048", 4}, {" 4096 ", 5}};
    for (const auto& [text, code] : parse) {
        CAPTURE(text);
        const auto p = parse_mtu_bytes(text);
        REQUIRE(p.ok);
        CHECK(p.value == code);
    }
    const auto bad = parse_mtu_bytes("1500");
    CHECK_FALSE(bad.ok);
    CHECK(bad.error == "MTU '1500' is not a path MTU; valid: 256, 512, 1024, 2048, 4096 (bytes)");
    CHECK_FALSE(parse_mtu_bytes("3").ok);
}

TEST_CASE("local ACK timeout: 4.096 us x 2^t, 0 = infinite")
{
    const std::vector<std::pair<int, double>> expect{
        {1, 8.192},          {2, 16.384},        {3, 32.768},          {8, 1048.576},
        {10, 4194.304},      {14, 67108.864},    {17, 536870.912},     {18, 1073741.824},
        {21, 8589934.592},   {31, 8796093022.208}};
    for (const auto& [code, us] : expect) {
        CAPTURE(code);
        const Decoded d = local_ack_timeout(code);
        CHECK(d.unit == "us");
        REQUIRE(d.value);
        CHECK(*d.value == doctest::Approx(us));
        CHECK(ack_timeout_us(code) == doctest::Approx(us));
    }
    const Decoded inf = local_ack_timeout(0);
    CHECK(inf.known);
    CHECK(inf.name == "infinite");
    CHECK_FALSE(inf.value.has_value());
    CHECK_FALSE(ack_timeout_us(0).has_value());
    CHECK_FALSE(local_ack_timeout(32).known);
    CHECK_FALSE(ack_timeout_us(32).has_value());
}

TEST_CASE("RNR NAK timer: the spec's 32 values in ms")
{
    const std::vector<std::pair<int, double>> expect{
        {0, 655.36},  {1, 0.01},   {2, 0.02},   {3, 0.03},    {4, 0.04},    {5, 0.06},
        {6, 0.08},    {7, 0.12},   {8, 0.16},   {9, 0.24},    {10, 0.32},   {11, 0.48},
        {12, 0.64},   {13, 0.96},  {14, 1.28},  {15, 1.92},   {16, 2.56},   {17, 3.84},
        {18, 5.12},   {19, 7.68},  {20, 10.24}, {21, 15.36},  {22, 20.48},  {23, 30.72},
        {24, 40.96},  {25, 61.44}, {26, 81.92}, {27, 122.88}, {28, 163.84}, {29, 245.76},
        {30, 327.68}, {31, 491.52}};
    REQUIRE(expect.size() == 32);
    for (const auto& [code, ms] : expect) {
        CAPTURE(code);
        const Decoded d = rnr_timer(code);
        CHECK(d.unit == "ms");
        REQUIRE(d.value);
        CHECK(*d.value == doctest::Approx(ms));
    }
    CHECK_FALSE(rnr_timer(32).known);
    CHECK_FALSE(rnr_timer(-1).known);
}

TEST_CASE("retry counters: retry_cnt 0-7, rnr_retry 7 = infinite")
{
    for (int n = 0; n <= 7; ++n) {
        CAPTURE(n);
        CHECK(retry_cnt(n).value == n);
        CHECK(retry_cnt(n).unit == "retries");
    }
    CHECK_FALSE(retry_cnt(8).known);
    for (int n = 0; n <= 6; ++n) {
        CAPTURE(n);
        CHECK(rnr_retry(n).value == n);
    }
    CHECK(rnr_retry(7).name == "infinite");
    CHECK_FALSE(rnr_retry(7).value.has_value());
    CHECK(rnr_retry(7).known);
    CHECK_FALSE(rnr_retry(8).known);
}

TEST_CASE("time before RETRY_EXC_ERR: timeout x (retry_cnt + 1)")
{
    CHECK(retry_exceeded_wait_us(14, 7) == doctest::Approx(536870.912));  // 8 x 67.1 ms
    CHECK(retry_exceeded_wait_us(14, 0) == doctest::Approx(67108.864));
    CHECK(retry_exceeded_wait_us(1, 3) == doctest::Approx(32.768));
    CHECK(retry_exceeded_wait_us(31, 7) == doctest::Approx(70368744177.664));
    CHECK_FALSE(retry_exceeded_wait_us(0, 7).has_value());  // timer off: waits forever
    CHECK_FALSE(retry_exceeded_wait_us(32, 7).has_value());
    CHECK_FALSE(retry_exceeded_wait_us(14, 8).has_value());
}

TEST_CASE("time before RNR_RETRY_EXC_ERR: rnr timer x rnr_retry, 7 = never")
{
    CHECK(rnr_exceeded_wait_ms(14, 6) == doctest::Approx(7.68));
    CHECK(rnr_exceeded_wait_ms(0, 1) == doctest::Approx(655.36));
    CHECK(rnr_exceeded_wait_ms(31, 6) == doctest::Approx(2949.12));
    CHECK(rnr_exceeded_wait_ms(12, 0) == doctest::Approx(0));
    CHECK_FALSE(rnr_exceeded_wait_ms(12, 7).has_value());
    CHECK_FALSE(rnr_exceeded_wait_ms(32, 1).has_value());
}

TEST_CASE("human durations")
{
    CHECK(human_duration_us(67108.864) == "67.109 ms");
    CHECK(human_duration_us(8.192) == "8.192 µs");
    CHECK(human_duration_us(0.5) == "500 ns");
    CHECK(human_duration_us(1000) == "1 ms");
    CHECK(human_duration_us(655360) == "655.36 ms");
    CHECK(human_duration_us(8796093022.208) == "8796.093 s");
    CHECK(human_duration_us(INFINITY) == "infinite");
}

TEST_CASE("parse_timeout: codes and durations")
{
    auto p = parse_timeout("67ms");
    REQUIRE(p.ok);
    CHECK(p.code == 14);
    CHECK(p.exact == doctest::Approx(67108.864));
    CHECK(p.unit == "us");
    CHECK(p.from_duration);
    CHECK(p.summary == "67ms → code 14 (67.109 ms)");

    p = parse_timeout("14");
    REQUIRE(p.ok);
    CHECK(p.code == 14);
    CHECK_FALSE(p.from_duration);
    CHECK(p.summary == "code 14 (67.109 ms)");

    p = parse_timeout("0.5s");
    REQUIRE(p.ok);
    CHECK(p.code == 17);  // 536.9 ms is nearer than 268.4 ms
    CHECK(p.summary == "0.5s → code 17 (536.871 ms)");

    p = parse_timeout("infinite");
    REQUIRE(p.ok);
    CHECK(p.code == 0);
    CHECK(std::isinf(p.exact));
    CHECK(p.summary == "infinite → code 0 (infinite)");

    p = parse_timeout("0");
    REQUIRE(p.ok);
    CHECK(p.code == 0);
    CHECK(p.summary == "code 0 (infinite)");

    const std::vector<std::pair<std::string, int>> expect{
        {"8us", 1},       {"4.096us", 1},     {"8.192µs", 1},  {"8.192μs", 1}, {"1ms", 8},
        {"2s", 19},       {" 67 MS ", 14},    {"67000us", 14}, {"67000000ns", 14},
        {"31", 31},       {"8796s", 31},      {"17000s", 31}};
    for (const auto& [text, code] : expect) {
        CAPTURE(text);
        const auto q = parse_timeout(text);
        REQUIRE(q.ok);
        CHECK(q.code == code);
    }
}

TEST_CASE("parse_timeout: errors name the value and what is valid")
{
    auto p = parse_timeout("32");
    CHECK_FALSE(p.ok);
    CHECK(p.error == "timeout code 32 is out of range: codes are 0-31 (0 = infinite, t = 4.096 µs × 2^t)");
    p = parse_timeout("20000s");
    CHECK_FALSE(p.ok);
    CHECK(p.error ==
          "timeout 20000s is out of range: durations from 8.192 µs to 8796.093 s, a code 0-31, or infinite");
    p = parse_timeout("abc");
    CHECK_FALSE(p.ok);
    CHECK(p.error == "timeout 'abc' is neither a code (0-31) nor a duration (e.g. 67ms, 0.5s, infinite)");
    for (const char* bad : {"", "-1", "1.5", "5 parsecs", "67 m s", "1..2ms", "4us", "0ms"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_timeout(bad).ok);
        CHECK_FALSE(parse_timeout(bad).error.empty());
    }
    CHECK_FALSE(parse_timeout("99999999999999999999999").ok);
}

TEST_CASE("parse_rnr_timer: codes and durations")
{
    auto p = parse_rnr_timer("1.28ms");
    REQUIRE(p.ok);
    CHECK(p.code == 14);
    CHECK(p.exact == doctest::Approx(1.28));
    CHECK(p.unit == "ms");
    CHECK(p.summary == "1.28ms → code 14 (1.28 ms)");

    p = parse_rnr_timer("10us");
    REQUIRE(p.ok);
    CHECK(p.code == 1);
    CHECK(p.summary == "10us → code 1 (10 µs)");

    p = parse_rnr_timer("0");
    REQUIRE(p.ok);
    CHECK(p.code == 0);
    CHECK(p.exact == doctest::Approx(655.36));
    CHECK(p.summary == "code 0 (655.36 ms)");

    const std::vector<std::pair<std::string, int>> expect{
        {"12", 12},     {"655ms", 0}, {"500ms", 31}, {"600 ms", 0}, {"1s", 0},
        {"0.1ms", 7},   {"2ms", 15},  {"5.12ms", 18}, {"6us", 1}};
    for (const auto& [text, code] : expect) {
        CAPTURE(text);
        const auto q = parse_rnr_timer(text);
        REQUIRE(q.ok);
        CHECK(q.code == code);
    }
}

TEST_CASE("parse_rnr_timer: errors")
{
    auto p = parse_rnr_timer("infinite");
    CHECK_FALSE(p.ok);
    CHECK(p.error ==
          "RNR timer 'infinite': there is no infinite RNR timer (0.01 ms to 655.36 ms, codes 0-31); "
          "to retry forever set rnr-retry 7");
    p = parse_rnr_timer("32");
    CHECK_FALSE(p.ok);
    CHECK(p.error ==
          "RNR timer code 32 is out of range: codes are 0-31 (1 = 0.01 ms ... 31 = 491.52 ms, 0 = 655.36 ms)");
    p = parse_rnr_timer("2s");
    CHECK_FALSE(p.ok);
    CHECK(p.error == "RNR timer 2s is out of range: durations from 0.01 ms to 655.36 ms, or a code 0-31");
    CHECK_FALSE(parse_rnr_timer("1us").ok);
    CHECK_FALSE(parse_rnr_timer("fast").ok);
}

TEST_CASE("static rate: every ibv_rate to nominal Gb/s and the library's Mb/s")
{
    const std::vector<std::tuple<int, double, int>> expect{
        {2, 2.5, 2500},      {3, 10, 10000},      {4, 30, 30000},       {5, 5, 5000},
        {6, 20, 20000},      {7, 40, 40000},      {8, 60, 60000},       {9, 80, 80000},
        {10, 120, 120000},   {11, 14, 14062},     {12, 56, 56250},      {13, 112, 112500},
        {14, 168, 168750},   {15, 25, 25781},     {16, 100, 103125},    {17, 200, 206250},
        {18, 300, 309375},   {19, 28, 28125},     {20, 50, 53125},      {21, 400, 425000},
        {22, 600, 637500},   {23, 800, 850000},   {24, 1200, 1275000}};
    for (const auto& [raw, gbps, mbps] : expect) {
        CAPTURE(raw);
        const Decoded d = static_rate(raw);
        CHECK(d.known);
        CHECK(d.unit == "gbps");
        CHECK(d.value == doctest::Approx(gbps));
        CHECK(static_rate_mbps(raw) == mbps);
    }
    const Decoded max = static_rate(0);
    CHECK(max.name == "MAX");
    CHECK_FALSE(max.value.has_value());
    CHECK_FALSE(static_rate_mbps(0).has_value());
    CHECK_FALSE(static_rate(1).known);
    CHECK_FALSE(static_rate(25).known);
    CHECK_FALSE(static_rate_mbps(25).has_value());
}

TEST_CASE("work completion status: every name, meanings present")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "SUCCESS"},           {1, "LOC_LEN_ERR"},         {2, "LOC_QP_OP_ERR"},
        {3, "LOC_EEC_OP_ERR"},    {4, "LOC_PROT_ERR"},        {5, "WR_FLUSH_ERR"},
        {6, "MW_BIND_ERR"},       {7, "BAD_RESP_ERR"},        {8, "LOC_ACCESS_ERR"},
        {9, "REM_INV_REQ_ERR"},   {10, "REM_ACCESS_ERR"},     {11, "REM_OP_ERR"},
        {12, "RETRY_EXC_ERR"},    {13, "RNR_RETRY_EXC_ERR"},  {14, "LOC_RDD_VIOL_ERR"},
        {15, "REM_INV_RD_REQ_ERR"}, {16, "REM_ABORT_ERR"},    {17, "INV_EECN_ERR"},
        {18, "INV_EEC_STATE_ERR"}, {19, "FATAL_ERR"},         {20, "RESP_TIMEOUT_ERR"},
        {21, "GENERAL_ERR"},      {22, "TM_ERR"},             {23, "TM_RNDV_INCOMPLETE"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(wc_status(raw).name == name);
        CHECK_FALSE(wc_status_meaning(raw).empty());
        CHECK(wc_status_meaning(raw) != "unknown status");
    }
    CHECK(wc_status_meaning(12) ==
          "transport retry counter exceeded: the remote side did not ACK within timeout × "
          "(retry_cnt+1); peer down, path wrong (GID/MTU/PSN), or link loss");
    CHECK(wc_status_meaning(13).find("RNR retry counter exceeded") == 0);
    CHECK(wc_status_meaning(5).find("flushed") == 0);
    CHECK_FALSE(wc_status(24).known);
    CHECK(wc_status(24).name == "UNKNOWN(0x18)");
    CHECK(wc_status_meaning(24) == "unknown status");
}

TEST_CASE("work completion opcodes")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "SEND"},       {1, "RDMA_WRITE"},          {2, "RDMA_READ"}, {3, "COMP_SWAP"},
        {4, "FETCH_ADD"},  {5, "BIND_MW"},             {6, "LOCAL_INV"}, {7, "TSO"},
        {9, "ATOMIC_WRITE"}, {128, "RECV"},            {129, "RECV_RDMA_WITH_IMM"},
        {130, "TM_ADD"},   {131, "TM_DEL"},            {132, "TM_SYNC"}, {133, "TM_RECV"},
        {134, "TM_NO_TAG"}, {135, "DRIVER1"},          {136, "DRIVER2"}, {137, "DRIVER3"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(wc_opcode(raw).name == name);
    }
    CHECK_FALSE(wc_opcode(8).known);
    CHECK_FALSE(wc_opcode(138).known);
}

TEST_CASE("work request opcodes")
{
    const std::vector<std::pair<int, std::string>> expect{
        {0, "RDMA_WRITE"},         {1, "RDMA_WRITE_WITH_IMM"}, {2, "SEND"},
        {3, "SEND_WITH_IMM"},      {4, "RDMA_READ"},           {5, "ATOMIC_CMP_AND_SWP"},
        {6, "ATOMIC_FETCH_AND_ADD"}, {7, "LOCAL_INV"},         {8, "BIND_MW"},
        {9, "SEND_WITH_INV"},      {10, "TSO"},                {11, "DRIVER1"},
        {15, "ATOMIC_WRITE"}};
    for (const auto& [raw, name] : expect) {
        CAPTURE(raw);
        CHECK(wr_opcode(raw).name == name);
    }
    CHECK_FALSE(wr_opcode(12).known);
    CHECK_FALSE(wr_opcode(16).known);
}

TEST_CASE("traffic class: DSCP and ECN")
{
    auto t = traffic_class(0);
    CHECK(t.dscp == 0);
    CHECK(t.ecn == 0);
    CHECK(t.ecn_name == "Not-ECT");
    t = traffic_class(106);  // DSCP 26 (AF31), ECT(0): a common RoCE setting
    CHECK(t.raw == 106);
    CHECK(t.dscp == 26);
    CHECK(t.ecn == 2);
    CHECK(t.ecn_name == "ECT(0)");
    t = traffic_class(185);  // DSCP 46 (EF), ECT(1)
    CHECK(t.dscp == 46);
    CHECK(t.ecn == 1);
    CHECK(t.ecn_name == "ECT(1)");
    t = traffic_class(255);
    CHECK(t.dscp == 63);
    CHECK(t.ecn == 3);
    CHECK(t.ecn_name == "CE");
}
