// The JSON contract, version 2 (CHANGELOG.md): whole quantities are JSON
// integers, GIDs have one text form, keys are {raw, name}, counters are a
// map keyed by name in `ports` and `ports --watch`, the error document names
// its command, the server of a read ping-pong has no figures, and a QP
// without a port has port null. Each through the real formatters.
#include <cstring>
#include <doctest/doctest.h>
#include <functional>
#include <regex>
#include <sstream>

#include "commands/app.hpp"
#include "commands/describe.hpp"
#include "formatters/latency.hpp"
#include "formatters/ports.hpp"
#include "formatters/qp.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/json.hpp"
#include "src/qp/attributes.hpp"
#include "src/report/qp.hpp"
#include "unit/formatters/sample_ports_report.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

// The document `render` prints, as JSON or as text.
Json json_of(const std::function<void(Printer&)>& render)
{
    std::ostringstream out;
    auto p = make_printer({.json = true, .color = false}, out);
    p->begin_document("test");
    render(*p);
    p->end_document();
    return Json::parse(out.str());
}

std::string text_of(const std::function<void(Printer&)>& render)
{
    std::ostringstream out;
    auto p = make_printer({.json = false, .color = false}, out);
    p->begin_document("test");
    render(*p);
    p->end_document();
    return out.str();
}

// The pattern docs/schema states for a GID.
const std::regex gid_pattern("^[0-9a-f]{4}(:[0-9a-f]{4}){7}$");

// An RC QP in RTS, held, as holder.cpp's describe() writes it; the GIDs in
// the short form an older holder wrote.
Json held_rc_qp()
{
    ibv_qp_attr a{};
    a.qp_state = a.cur_qp_state = IBV_QPS_RTS;
    a.path_mtu = IBV_MTU_1024;
    a.qkey = 0xffff;
    a.dest_qp_num = 0x12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    const std::uint8_t dgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x78, 0xb0, 0x8b, 0xff, 0xfe, 0x29, 0xa4, 0xca};
    std::memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
    a.ah_attr.grh.flow_label = 0x12345;
    a.ah_attr.grh.sgid_index = 1;
    a.port_num = 1;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 6;
    ibv_qp_init_attr init{};
    init.qp_type = IBV_QPT_RC;
    init.cap = {32, 32, 2, 2, 128};
    Json attr = qp::qp_attr_to_json(a, init);
    attr["ah_attr"]["dgid"] = "fe80::78b0:8bff:fe29:a4ca";  // what inet_ntop wrote
    Json j{{"qpn", 0x1a2},
               {"device", "qpscope_unit_no_such_device0"},
               {"port", 1},
               {"attr", attr},
               {"granted", Json{{"max_send_wr", 32},
                                    {"max_recv_wr", 32},
                                    {"max_send_sge", 2},
                                    {"max_recv_sge", 2},
                                    {"max_inline_data", 128}}},
               {"buffer", Json{{"addr", 0x7f0000001000ull}, {"size", 4096}, {"lkey", 0x111}, {"rkey", 0x222}}},
               {"posted", 0}};
    j["port_state"] = IBV_PORT_ACTIVE;
    j["pkey"] = 0xffff;
    j["sgid"] = Json{{"gid", "::ffff:192.0.2.2"}, {"type", IBV_GID_TYPE_ROCE_V2}};
    return j;
}

report::LatencyStats stats(std::uint32_t size, std::uint64_t p50)
{
    report::LatencyStats s;
    s.size = size;
    s.samples = 100;
    s.min_ns = s.p50_ns = s.p90_ns = s.p99_ns = s.p999_ns = s.p9999_ns = s.max_ns = p50;
    s.mean_ns = double(p50);
    s.period.samples = 99;
    s.period.min_ns = s.period.p50_ns = s.period.max_ns = p50 + 500;
    s.seconds = 0.5;
    return s;
}

report::PingPongReport ping_pong(const std::string& op, const std::string& role)
{
    report::PingPongReport r;
    r.role = role;
    r.peer = "127.0.0.1:18615";
    r.op = op;
    r.transport = "rc";
    r.device = "rxe0";
    r.mtu_bytes = 1024;
    r.iterations = 100;
    r.one_way = op != "read";
    // The other side's figures arrive over the exchange; a read server's are all zero.
    report::SizeResult s{stats(64, role == "client" ? 9000 : 0), stats(64, role == "client" ? 0 : 9000), std::nullopt};
    r.sizes.push_back(s);
    return r;
}

}  // namespace

TEST_CASE("v2: schema_version 2 in every document")
{
    CHECK(json_of([](Printer&) {})["schema_version"] == 2);
}

TEST_CASE("v2: quantities whole by nature are JSON integers, fractional ones stay numbers")
{
    const auto j = json_of([](Printer& p) {
        p.field("mtu", "", decode::mtu(IBV_MTU_1024));
        p.field("width", "", decode::width(2));
        p.field("vl", "", decode::vl_cap(4));
        p.field("retry", "", decode::retry_cnt(7));
        p.field("speed", "", decode::speed(32));
        p.field("timeout", "", decode::local_ack_timeout(14));
    });
    CHECK(j["mtu"]["bytes"].is_number_integer());
    CHECK(j["mtu"]["bytes"] == 1024);
    CHECK(j["width"]["lanes"].is_number_integer());
    CHECK(j["vl"]["vls"].is_number_integer());
    CHECK(j["retry"]["retries"].is_number_integer());
    CHECK(j["speed"]["lane_gbps"].is_number_float());
    CHECK(j["timeout"]["us"].is_number_float());
    // In the text too: "1024" not "1024.0".
    CHECK(j.dump().find("1024.0") == std::string::npos);
    // The whole ports report: the MTU, the lanes and the counters.
    const auto ports = json_of([](Printer& p) { render_ports(test::sample_ports_report(), p); });
    const auto& port = ports["devices"][0]["ports"][0];
    CHECK(port["active_mtu"]["bytes"].is_number_integer());
    CHECK(port["max_msg_sz"].is_number_integer());
}

TEST_CASE("v2: one GID text form, the full one, in qp query and qp modify")
{
    const report::QpReport r = report::build_qp_report(held_rc_qp());
    const auto j = json_of([&](Printer& p) { render_qp(r, p); });
    const auto& av = j["qp"]["address_vector"];
    CHECK(av["dgid"] == "fe80:0000:0000:0000:78b0:8bff:fe29:a4ca");
    CHECK(av["sgid"] == "0000:0000:0000:0000:0000:ffff:c000:0202");
    CHECK(std::regex_match(av["dgid"].get<std::string>(), gid_pattern));
    // What qp modify says it sent (and what the holder is sent).
    qp::ModifyRequest m;
    m.dgid = qp::parse_gid("fe80::1");
    CHECK(qp::to_json(m)["dgid"] == "fe80:0000:0000:0000:0000:0000:0000:0001");
    m.dgid = qp::parse_gid("192.0.2.1");
    CHECK(qp::to_json(m)["dgid"] == "0000:0000:0000:0000:0000:ffff:c000:0201");
}

TEST_CASE("v2: qkey, pkey, rkey (and every other hex value) are {raw, name}")
{
    const report::QpReport r = report::build_qp_report(held_rc_qp());
    const auto j = json_of([&](Printer& p) { render_qp(r, p); });
    const auto& q = j["qp"];
    CHECK(q["qkey"] == Json{{"raw", 65535}, {"name", "0xffff"}});
    CHECK(q["pkey"] == Json{{"raw", 65535}, {"name", "0xffff"}});
    CHECK(q["buffer"]["rkey"] == Json{{"raw", 0x222}, {"name", "0x222"}});
    CHECK(q["buffer"]["addr"] == Json{{"raw", 0x7f0000001000ull}, {"name", "0x7f0000001000"}});
    CHECK(q["buffer"]["size_bytes"] == 4096);
    CHECK(q["address_vector"]["flow_label"] == Json{{"raw", 0x12345}, {"name", "0x12345"}});
    CHECK(q["qpn"] == Json{{"raw", 0x1a2}, {"name", "0x1a2"}});
    // The P_Key table of ports too.
    report::PortsReport ports = test::sample_ports_report();
    ports.devices[0].ports[0].pkeys = {{0, 0xffff, true}, {1, 0x7fff, false}};
    const auto pj = json_of([&](Printer& p) { render_ports(ports, p); });
    CHECK(pj["devices"][0]["ports"][0]["pkeys"][1]["pkey"] == Json{{"raw", 0x7fff}, {"name", "0x7fff"}});
}

TEST_CASE("v2: counters in ports are a map keyed by name, each {value} or {error}")
{
    const auto j = json_of([](Printer& p) { render_ports(test::sample_ports_report(), p); });
    const auto& port = j["devices"][0]["ports"][0];
    REQUIRE(port["counters"].is_object());
    CHECK(port["counters"]["port_xmit_data"] == Json{{"value", 1000}});
    CHECK(port["counters"]["port_rcv_data"]["value"] == 18446744073709551615ull);
    CHECK(port["hw_counters"]["req_cqe_error"] == Json{{"error", "Operation not supported"}});
    CHECK(port["hw_counters"]["np_cnp_sent"] == Json{{"value", 7}});
    CHECK_FALSE(port.contains("hw_counters_errors"));
    // Text: a table, the unreadable counter with its error.
    const std::string text = text_of([](Printer& p) { render_ports(test::sample_ports_report(), p); });
    INFO(text);
    CHECK(text.find("req_cqe_error  -      Operation not supported") != std::string::npos);
}

TEST_CASE("v2: a diagnosis's error counters have the same map shape")
{
    report::QpReport r = report::build_qp_report(held_rc_qp());
    r.diagnosis = report::Diagnosis{"summary", {"check"}, decode::port_state(4), {{"rcvd_seq_err", 3, "meaning"}}};
    const auto j = json_of([&](Printer& p) { render_qp(r, p); });
    CHECK(j["qp"]["diagnosis"]["error_counters"] == Json{{"rcvd_seq_err", {{"value", 3}, {"meaning", "meaning"}}}});
}

TEST_CASE("v2: ping-pong --op read: no server figures (absent in JSON, a line saying why in text)")
{
    for (const char* role : {"client", "server"}) {
        INFO(role);
        const report::PingPongReport r = ping_pong("read", role);
        const auto j = json_of([&](Printer& p) { render_ping_pong(r, p); });
        CHECK(j.contains("client"));
        CHECK(j.contains("client_loop_period"));
        CHECK_FALSE(j.contains("server"));
        CHECK_FALSE(j.contains("server_loop_period"));
        CHECK(j["client"][0]["p50_ns"] == 9000);
        CHECK(j["client"][0]["size_bytes"] == 64);
        CHECK(j["client"][0]["measured_s"] == 0.5);
        const std::string text = text_of([&](Printer& p) { render_ping_pong(r, p); });
        CHECK(text.find("server (" + std::string(role == std::string("server") ? "this side" : "the other side") +
                        "): no figures: in a read or atomic test") != std::string::npos);
        for (const char* figure : {"round trip", "loop period"}) {
            CHECK(text.find(std::string("server (this side), ") + figure) == std::string::npos);
            CHECK(text.find(std::string("server (the other side), ") + figure) == std::string::npos);
        }
    }
    // send and write: both sides measure.
    const auto j = json_of([&](Printer& p) { render_ping_pong(ping_pong("send", "client"), p); });
    CHECK(j.contains("server"));
    CHECK(j.contains("server_loop_period"));
    CHECK(j["test"]["path_mtu"] == Json{{"raw", 3}, {"bytes", 1024}});
}

TEST_CASE("ping-pong: the round trip and the loop period are named apart, in JSON and in text")
{
    const report::PingPongReport r = ping_pong("send", "client");
    const auto j = json_of([&](Printer& p) { render_ping_pong(r, p); });
    CHECK(j["client"][0]["p50_ns"] == 9000);
    CHECK(j["client_loop_period"][0]["p50_ns"] == 9500);
    CHECK(j["client_loop_period"][0]["samples"] == 99);
    CHECK(j["client_loop_period"][0]["size_bytes"] == 64);
    CHECK_FALSE(j["client_loop_period"][0].contains("aborted"));
    const std::string text = text_of([&](Printer& p) { render_ping_pong(r, p); });
    CHECK(text.find("client (this side), round trip, halved: post of a message to its reply seen") != std::string::npos);
    CHECK(text.find("client (this side), loop period, halved: post of a message to the next post (perftest's sample)") !=
          std::string::npos);
    // The peer's figures cross the exchange with their period.
    const report::LatencyStats back = report::latency_stats_from_json(report::to_json(stats(64, 9000)));
    CHECK(back.period.samples == 99);
    CHECK(back.period.p50_ns == 9500);
    CHECK(back.p50_ns == 9000);
}

TEST_CASE("v2: a QP not yet bound to a port has port null (text '-'), not port 0")
{
    kernel::KernelQp reset;
    reset.dev_name = "rxe0";
    reset.port = 0;
    reset.lqpn = 0x11;
    reset.type = IBV_QPT_RC;
    reset.state = IBV_QPS_RESET;
    reset.comm = "qpscope-holder";
    kernel::KernelQp bound = reset;
    bound.port = 1;
    bound.lqpn = 0x12;
    ops::QpListing two;
    two.qps = {reset, bound};
    const auto j = json_of([&](Printer& p) { render_kernel_qps(two, p); });
    CHECK(j["qps"][0]["port"].is_null());
    CHECK(j["qps"][1]["port"] == 1);
    const auto one = json_of([&](Printer& p) { render_kernel_qp(report::kernel_qp_report(reset), p); });
    CHECK(one["port"].is_null());
    ops::QpListing first;
    first.qps = {reset};
    const std::string text = text_of([&](Printer& p) { render_kernel_qps(first, p); });
    INFO(text);
    CHECK(text.find("rxe0    -     0x11") != std::string::npos);
}

TEST_CASE("v2: the error document's command is the command path typed, \"\" before one is named")
{
    CLI::App app;
    commands::GlobalOptions global;
    commands::build_app(app, global);
    const completion::CommandSpec root = commands::describe_cli(app);
    using W = std::vector<std::string>;
    CHECK(commands::typed_command(root, W{"--json", "ports", "-d", "nosuch"}) == "ports");
    CHECK(commands::typed_command(root, W{"ports", "--watch", "1", "--json"}) == "ports");
    CHECK(commands::typed_command(root, W{"--json", "qp", "create", "--pair"}) == "qp create");
    CHECK(commands::typed_command(root, W{"qp", "--json", "query", "0x11"}) == "qp query");
    CHECK(commands::typed_command(root, W{"--json", "qp", "crate"}) == "qp");  // stops at the mistyped word
    CHECK(commands::typed_command(root, W{"ports", "--devcie", "x"}) == "ports");
    CHECK(commands::typed_command(root, W{"--json", "prots"}).empty());
    CHECK(commands::typed_command(root, W{"--json"}).empty());
    CHECK(commands::typed_command(root, W{"ping-pong", "-d", "qp", "host1"}) == "ping-pong");  // a value, not a command
}
