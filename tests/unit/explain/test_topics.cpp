// explain's topics, both ways: number → name and name → number for every
// enumerated topic, the duration ↔ code round trip of both timers at every
// code, and one-line errors for unknown topics and values.
#include <cerrno>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>

#include "src/decode/cm.hpp"
#include "src/decode/device.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/explain/topics.hpp"
#include "unit/util.hpp"

using namespace qps;
using qps::test::contains;
using qps::test::thrown;

namespace {

std::string fact_of(const explain::Explanation& e, const std::string& key)
{
    for (const auto& f : e.facts)
        if (f.key == key)
            return f.text;
    return "<no fact " + key + ">";
}

template <class Table>
void check_both_ways(const char* topic, const Table& table)
{
    for (const auto& entry : table) {
        const auto by_number = explain::explain(topic, std::to_string(entry.value));
        CHECK(by_number.name == entry.name);
        const auto by_name = explain::explain(topic, std::string(entry.name));
        CHECK(by_name.raw == entry.value);
    }
}

}  // namespace

TEST_CASE("explain: every enumerated topic both ways, from the tables the rest of qpscope decodes with")
{
    check_both_ways("wc-status", decode::wc_status_table);
    check_both_ways("wc-opcode", decode::wc_opcode_table);
    check_both_ways("qp-state", decode::qp_state_table);
    check_both_ways("port-state", decode::port_state_table);
    check_both_ways("phys-state", decode::phys_state_table);
    check_both_ways("width", decode::width_table);
    check_both_ways("speed", decode::speed_table);
    // Names are case-insensitive and may carry the verbs prefix.
    CHECK(explain::explain("wc-status", "ibv_wc_retry_exc_err").raw == 12);
    CHECK(explain::explain("qp-state", "IBV_QPS_RTS").raw == 3);
    CHECK(explain::explain("wc-status", "0xc").name == "RETRY_EXC_ERR");
}

TEST_CASE("explain: a value given by name carries its number, in every topic that takes names")
{
    CHECK(explain::explain("wc-status", "RETRY_EXC_ERR").number == "12");
    CHECK(explain::explain("wc-status", "12").number.empty());
    CHECK(explain::explain("wc-status", "0xc").number.empty());
    CHECK(explain::explain("wc-opcode", "RDMA_WRITE").number == "1");
    CHECK(explain::explain("qp-state", "RTS").number == "3");
    CHECK(explain::explain("port-state", "ACTIVE").number == "4");
    CHECK(explain::explain("phys-state", "LINK_UP").number == "5");
    CHECK(explain::explain("width", "4X").number == "2");
    CHECK(explain::explain("speed", "NDR").number == "128");
    CHECK(explain::explain("rate", "100_GBPS").number == "16");
    CHECK(explain::explain("timeout", "67ms").number == "14");
    CHECK(explain::explain("qp-attr-mask", "STATE|PORT").number == "0x21");
    CHECK(explain::explain("access", "LOCAL_WRITE").number == "0x1");
    CHECK(explain::explain("errno", "EINVAL").number == "22");
    // A GID is its own number.
    CHECK(explain::explain("gid", "::ffff:192.0.2.1").number.empty());
}

TEST_CASE("explain wc-status: the same meaning as qp query's diagnosis")
{
    const auto e = explain::explain("wc-status", "12");
    CHECK(e.name == "RETRY_EXC_ERR");
    CHECK(fact_of(e, "meaning") == decode::wc_status_meaning(12));
}

TEST_CASE("explain mtu, width and speed: the enum and what it stands for")
{
    CHECK(explain::explain("mtu", "3").name == "1024 bytes");
    CHECK(explain::explain("mtu", "4096").raw == 5);
    CHECK(fact_of(explain::explain("mtu", "2048"), "enum") == "IBV_MTU_2048 = 4");
    CHECK(fact_of(explain::explain("width", "4X"), "lanes") == "4");
    CHECK(contains(fact_of(explain::explain("speed", "NDR"), "lane_gbps"), "100 Gb/s signalling"));
}

TEST_CASE("explain timeout and rnr-timer: code → duration → the same code, at every code")
{
    for (int code = 0; code <= decode::max_timer_code; ++code) {
        const auto t = explain::explain("timeout", std::to_string(code));
        CHECK(t.raw == code);
        if (code == 0)
            CHECK(t.name == "infinite");
        else
            CHECK_MESSAGE(explain::explain("timeout", t.name).raw == code, t.name);
        const auto r = explain::explain("rnr-timer", std::to_string(code));
        CHECK_MESSAGE(explain::explain("rnr-timer", r.name).raw == code, r.name);
    }
    const auto t14 = explain::explain("timeout", "67ms", {.retry_cnt = 7, .rnr_retry = std::nullopt, .verb = {}, .vendor = {}});
    CHECK(t14.raw == 14);
    CHECK(t14.name == "67.109 ms");
    CHECK(contains(fact_of(t14, "nearest_code"), "code 14"));
    CHECK(contains(fact_of(t14, "retry_exceeded_after"), "536.871 ms (8 attempts"));
    CHECK(fact_of(explain::explain("rnr-timer", "12", {.retry_cnt = std::nullopt, .rnr_retry = 7, .verb = {}, .vendor = {}}), "rnr_retry_exceeded_after") ==
          "never: rnr-retry 7 retries forever");
}

TEST_CASE("explain retry-cnt and rnr-retry: 7 is infinite for RNR only")
{
    CHECK(explain::explain("rnr-retry", "7").name == "infinite");
    CHECK(explain::explain("retry-cnt", "7").name == "7 retries");
    CHECK(contains(fact_of(explain::explain("retry-cnt", "7"), "meaning"), "not infinite"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("retry-cnt", "8"); }), "valid: 0-7"));
}

TEST_CASE("explain qp-attr-mask: every bit by name, unknown bits kept, and back from names")
{
    const auto e = explain::explain("qp-attr-mask", "0x12d81");
    CHECK(e.raw == 0x12d81);
    CHECK(contains(e.name, "IBV_QP_STATE"));
    CHECK(contains(e.name, "IBV_QP_AV"));
    CHECK(contains(e.name, "IBV_QP_PATH_MTU"));
    CHECK_FALSE(contains(e.name, "IBV_QP_DEST_QPN"));
    CHECK(e.unknown_bits == 0);
    CHECK(explain::explain("qp-attr-mask", "IBV_QP_STATE|IBV_QP_PORT").raw == (IBV_QP_STATE | IBV_QP_PORT));
    CHECK(explain::explain("qp-attr-mask", "state | port").raw == (IBV_QP_STATE | IBV_QP_PORT));
    const auto unknown = explain::explain("qp-attr-mask", "0x80000001");
    CHECK(unknown.unknown_bits == 0x80000000u);
    CHECK(contains(unknown.name, "0x80000000 (unknown bits)"));
}

TEST_CASE("explain: one-line errors for an unknown topic, name or value")
{
    CHECK(contains(thrown<UsageError>([] { explain::explain("wc-stauts", "12"); }),
                   "unknown topic 'wc-stauts': did you mean 'wc-status'?"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("wc-status", "99"); }),
                   "wc-status '99': not a known value; valid: 0-23"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("wc-status", "retry_exc_er"); }),
                   "unknown wc-status 'RETRY_EXC_ER': did you mean 'RETRY_EXC_ERR'?"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("mtu", "1500"); }), "valid: 1-5, or 256"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("timeout", "2 days"); }), "timeout '2 days'"));
    CHECK(explain::topics().size() == 30);
}

TEST_CASE("explain wc-status: the checks are qp query's, most likely first")
{
    const auto e = explain::explain("wc-status", "RETRY_EXC_ERR");
    REQUIRE_FALSE(e.checks.empty());
    CHECK(e.checks == decode::wc_status_checks(IBV_WC_RETRY_EXC_ERR));
    CHECK(contains(e.checks.front(), "peer QP"));
    CHECK(explain::explain("wc-status", "SUCCESS").checks.empty());
}

TEST_CASE("explain rate: enum ↔ Gb/s, every entry both ways")
{
    for (const auto& r : decode::static_rate_table) {
        const auto by_number = explain::explain("rate", std::to_string(r.value));
        CHECK(by_number.raw == r.value);
        CHECK(explain::explain("rate", std::string(r.name)).raw == r.value);
        if (r.value != IBV_RATE_MAX)
            CHECK(explain::explain("rate", fmt::format("{:g}G", r.gbps)).raw == r.value);
    }
    CHECK(explain::explain("rate", "IBV_RATE_100_GBPS").name == "100 Gb/s");
    CHECK(contains(fact_of(explain::explain("rate", "100G"), "mbps"), "103125 Mb/s"));
    CHECK(explain::explain("rate", "0").name == "MAX");
    CHECK(contains(thrown<UsageError>([] { explain::explain("rate", "1"); }), "rate '1': not a known value"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("rate", "99G"); }), "rate '99G'"));
}

TEST_CASE("explain access, port-cap, port-cap2, device-cap: every bit by name and back")
{
    const auto a = explain::explain("access", "7");
    CHECK(a.name == "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ");
    CHECK(explain::explain("access", "local_write,remote_read").raw == (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
    CHECK(explain::explain("access", "remote-write").raw == IBV_ACCESS_REMOTE_WRITE);
    for (const auto& f : decode::port_cap_flags_table)
        CHECK(explain::explain("port-cap", std::to_string(f.bit)).names == std::vector<std::string>{std::string(f.name)});
    for (const auto& f : decode::port_cap_flags2_table)
        CHECK(explain::explain("port-cap2", std::string(f.name)).raw == static_cast<std::int64_t>(f.bit));
    for (const auto& f : decode::device_cap_flags_table)
        CHECK(explain::explain("device-cap", "IBV_DEVICE_" + std::string(f.name)).raw == static_cast<std::int64_t>(f.bit));
    const auto unknown = explain::explain("port-cap", "0x80000002");
    CHECK(unknown.names == std::vector<std::string>{"SM"});
    CHECK(unknown.unknown_bits == 0x80000000u);
    CHECK(explain::explain("access", "0").name == "none");
    CHECK(contains(thrown<UsageError>([] { explain::explain("access", "remote_wirte"); }),
                   "did you mean 'REMOTE_WRITE'?"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("port-cap", "-1"); }), "port-cap '-1'"));
}

TEST_CASE("explain gid: IPv4-mapped, link-local with the MAC inside, zero, multicast")
{
    const auto v4 = explain::explain("gid", "::ffff:10.0.0.1");
    CHECK(v4.name == "IPv4-mapped, 10.0.0.1");
    CHECK(fact_of(v4, "full") == "0000:0000:0000:0000:0000:ffff:0a00:0001");
    const auto ll = explain::explain("gid", "fe80:0000:0000:0000:5054:00ff:fe12:3456");
    CHECK(ll.name == "link-local");
    CHECK(fact_of(ll, "subnet_prefix") == "fe80:0000:0000:0000");
    CHECK(fact_of(ll, "interface_id") == "5054:00ff:fe12:3456");
    CHECK(fact_of(ll, "mac") == "52:54:00:12:34:56");
    const auto ib = explain::explain("gid", "fe80::2:c903:a1:b2c3");
    CHECK(fact_of(ib, "port_guid") == "0x0002c90300a1b2c3");
    CHECK(explain::explain("gid", "::").name == "zero GID");
    CHECK(explain::explain("gid", "ff12:401b::1").name == "multicast");
    CHECK(explain::explain("gid", "2001:db8::1").name == "global");
    CHECK(contains(thrown<UsageError>([] { explain::explain("gid", "10.0.0.1"); }), "gid '10.0.0.1': not a GID"));
}

TEST_CASE("explain errno: number, name or text, and the verb's own meaning")
{
    CHECK(explain::explain("errno", "22").name == "EINVAL");
    CHECK(explain::explain("errno", "-12").name == "ENOMEM");
    CHECK(explain::explain("errno", "Invalid argument").raw == EINVAL);
    CHECK(explain::explain("errno", "etimedout").raw == ETIMEDOUT);
    CHECK(fact_of(explain::explain("errno", "EINVAL"), "text") == "Invalid argument");
    const auto m = explain::explain("errno", "22", {.retry_cnt = {}, .rnr_retry = {}, .verb = "modify_qp", .vendor = {}});
    CHECK(m.decoded);
    CHECK_FALSE(m.checks.empty());
    CHECK(contains(fact_of(m, "qp_modify_checks"), "the port exists on the device"));
    const auto r = explain::explain("errno", "ENOMEM", {.retry_cnt = {}, .rnr_retry = {}, .verb = "ibv_reg_mr", .vendor = {}});
    CHECK(contains(fact_of(r, "meaning") + fmt::format("{}", fmt::join(r.checks, ";")), "memlock"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("errno", "0"); }), "errno '0'"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("errno", "EINVLA"); }), "did you mean 'EINVAL'?"));
    CHECK(contains(thrown<UsageError>([] {
                       explain::explain("errno", "22", {.retry_cnt = {}, .rnr_retry = {}, .verb = "modfy_qp", .vendor = {}});
                   }),
                   "did you mean 'modify_qp'?"));
}

TEST_CASE("explain: value_names offers every enumerated topic's names")
{
    CHECK(explain::value_names("wc-status").size() == decode::wc_status_table.size());
    CHECK(explain::value_names("access").size() == decode::access_flags_table.size());
    CHECK(explain::value_names("timeout").empty());
    for (const auto& t : explain::topics())
        CHECK_NOTHROW(explain::value_names(t.name));
}

TEST_CASE("explain cm-event: by number, name (with or without RDMA_CM_EVENT_) or the kernel's words")
{
    check_both_ways("cm-event", decode::cm_events());
    CHECK(explain::explain("cm-event", "rdma_cm_event_addr_error").raw == 1);
    CHECK(explain::explain("cm-event", "RDMA_CM_EVENT_REJECTED").name == "REJECTED");
    CHECK(explain::explain("cm-event", "0x7").name == "UNREACHABLE");
    // rdma_event_msg()'s words, as nvme-rdma and iSER print them ("route resolved " ends in a space in cma.c).
    CHECK(explain::explain("cm-event", "address error").raw == 1);
    CHECK(explain::explain("cm-event", "Route Resolved ").raw == 2);
    CHECK(explain::explain("cm-event", "timewait exit").raw == 15);
    // Lustre's o2iblnd writes names with a space.
    CHECK(explain::explain("cm-event", "CONNECT ERROR").raw == 6);
    CHECK(explain::explain("cm-event", "address error").number == "1");
    CHECK(explain::explain("cm-event", "1").number.empty());
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-event", "20"); }),
                   "cm-event '20': not a known value; valid: 0-19"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-event", "-1"); }), "cm-event '-1'"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-event", "adr_error"); }),
                   "did you mean 'ADDR_ERROR'?"));
}

TEST_CASE("explain cm-event: the meaning, whether it is a failure, the kernel's words and the table's checks")
{
    const auto e = explain::explain("cm-event", "ADDR_ERROR");
    CHECK(fact_of(e, "meaning") == decode::find_cm_event(1)->meaning);
    CHECK(contains(fact_of(e, "failure"), "yes"));
    CHECK(fact_of(e, "kernel_words") == "\"address error\" (rdma_event_msg)");
    REQUIRE_FALSE(e.checks.empty());
    CHECK(contains(e.checks.front(), "ARP/ND"));
    for (const auto& c : e.checks) {
        CHECK_FALSE(c.empty());
        CHECK(c.front() != ' ');  // "; " between the table's items
    }
    const auto ok = explain::explain("cm-event", "ESTABLISHED");
    CHECK(ok.checks.empty());
    CHECK(fact_of(ok, "failure") == "no");
    CHECK(fact_of(explain::explain("cm-event", "ADDRINFO_ERROR"), "kernel_words") == "<no fact kernel_words>");
}

TEST_CASE("explain cm-reject: by number or name (with or without IB_CM_REJ_), and the event that carries it")
{
    check_both_ways("cm-reject", decode::cm_rejects());
    CHECK(explain::explain("cm-reject", "ib_cm_rej_invalid_service_id").raw == 8);
    CHECK(explain::explain("cm-reject", "CONSUMER_DEFINED").number == "28");
    const auto r = explain::explain("cm-reject", "28");
    CHECK(r.name == "CONSUMER_DEFINED");
    CHECK(fact_of(r, "meaning") == decode::find_cm_reject(28)->meaning);
    CHECK(contains(fact_of(r, "event"), "RDMA_CM_EVENT_REJECTED (8), status = 28"));
    CHECK(contains(fact_of(r, "event"), "iWARP"));
    CHECK_FALSE(r.checks.empty());
    CHECK(explain::explain("cm-reject", "NO_EEC").checks.empty());
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-reject", "34"); }),
                   "cm-reject '34': not a known value; valid: 1-33 or 35"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-reject", "0"); }), "valid: 1-33 or 35"));
    CHECK(contains(thrown<UsageError>([] { explain::explain("cm-reject", "INVALID_SERVICE"); }),
                   "did you mean 'INVALID_SERVICE_ID'?"));
}

TEST_CASE("explain: value_names offers the cm tables' names")
{
    CHECK(explain::value_names("cm-event").size() == decode::cm_events().size());
    CHECK(explain::value_names("cm-event").front() == "ADDR_RESOLVED");
    CHECK(explain::value_names("cm-reject").size() == decode::cm_rejects().size());
    CHECK(explain::value_names("cm-reject").back() == "VENDOR_OPTION_NOT_SUPPORTED");
}

TEST_CASE("explain: the storage consumers' numbers and lines, from the kernel's tables")
{
    auto e = explain::explain("blk-status", "10");
    CHECK(e.name == "BLK_STS_IOERR");
    CHECK(contains(e.facts[0].text, "Host Aborted Command"));
    CHECK(explain::explain("blk-status", "BLK_STS_TRANSPORT").raw == 4);
    e = explain::explain("nvme-status", "16772");  // 0x4184: CONNECT_INVALID_HOST with DNR
    CHECK(e.name == "CONNECT_INVALID_HOST");
    CHECK(e.raw == 0x184);
    CHECK(contains(e.facts.back().text, "DNR"));
    CHECK(explain::explain("nvme-status", "881").name == "HOST_ABORTED_CMD");
    CHECK(explain::explain("nvme-status", "0x371").name == "HOST_ABORTED_CMD");
    CHECK(explain::explain("nvme-cm-status", "NO_RSC").raw == 6);
    CHECK(explain::explain("srp-login-reject", "0x10006").name == "CHANNEL_LIMIT_REACHED");
    CHECK(explain::explain("iscsi-error", "1011").name == "CONN_FAILED");
    CHECK(explain::explain("iscsi-error", "ISCSI_ERR_NOP_TIMEDOUT").raw == 1022);
    CHECK_THROWS_AS(explain::explain("blk-status", "18"), qps::UsageError);
    CHECK_THROWS_AS(explain::explain("nvme-cm-status", "BOGUS"), qps::UsageError);

    e = explain::explain("kernel-event", "nvme-error-recovery");
    CHECK(e.name == "nvme-error-recovery");
    CHECK(e.number.empty());
    CHECK(e.facts[0].text == "NVMe over Fabrics host (nvme-rdma)");
    CHECK(contains(e.facts[2].text, "\"starting error recovery\\n\" (drivers/nvme/host/rdma.c"));
    REQUIRE(e.checks.size() == 1);
    CHECK_THROWS_WITH_AS(explain::explain("kernel-event", "nvme-error-recovry"),
                         doctest::Contains("nvme-error-recovery"), qps::UsageError);
    CHECK(explain::value_names("kernel-event").size() == 39);
    CHECK(explain::value_names("iscsi-error").size() == 22);
}
