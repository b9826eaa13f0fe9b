// The exchange's typed messages: round trips and strict parsers.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <string>

#include "src/error.hpp"
#include "src/net/messages.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::net;
using namespace qps::net::test;
using qps::Json;
using qps::OperationError;
using namespace std::chrono_literals;

namespace {

Endpoint sample_endpoint()
{
    Endpoint e;
    e.qpn = 0x123;
    e.psn = 0xabcdef;
    e.lid = 7;
    e.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};
    e.gid_index = 1;
    e.rkey = 0xdeadbeef;
    e.addr = 0x7fff12345000;
    e.size = 4096;
    e.mtu = 1024;
    e.max_dest_rd_atomic = 16;
    return e;
}

// The sample endpoint's message with one member replaced (or removed, with a discarded value).
Json endpoint_with(const std::string& key, const Json& value)
{
    Json m = to_message(sample_endpoint());
    if (value.is_discarded())
        m.erase(key);
    else
        m[key] = value;
    return m;
}

std::string endpoint_error(const std::string& key, const Json& value)
{
    return thrown<OperationError>([&] { parse_endpoint(endpoint_with(key, value)); });
}

Json hello_json() { return to_message(Hello{oob_version, "qpscope", "ping-pong", "client"}); }

std::string hello_error(const Json& m)
{
    return thrown<OperationError>([&] { parse_hello(m); });
}

const Json removed = Json(Json::value_t::discarded);

}  // namespace

TEST_CASE("hello: round trip and wire form")
{
    const Hello h{oob_version, "qpscope", "bw", "server"};
    CHECK(to_message(h).dump() ==
          fmt::format(R"({{"type":"hello","version":{},"tool":"qpscope","test":"bw","role":"server"}})", oob_version));
    CHECK(parse_hello(to_message(h)) == h);
    CHECK(parse_hello(decode_frame(encode_frame(to_message(h)))) == h);
}

TEST_CASE("hello: strict members")
{
    Json m = hello_json();
    m["colour"] = "blue";
    CHECK(hello_error(m) == R"(hello message: unknown member "colour" (it has: "version", "tool", "test", "role"))");
    m = hello_json();
    m.erase("role");
    CHECK(hello_error(m) == R"(hello message: missing member "role")");
    m = hello_json();
    m["test"] = "latency";
    CHECK(hello_error(m) == R"(hello message: member "test" is "latency", must be one of "ping-pong", "bw", "path")");
    m = hello_json();
    m["role"] = 1;
    CHECK(hello_error(m) == R"(hello message: member "role" is 1, must be one of "client", "server")");
    m = hello_json();
    m["version"] = "1";
    CHECK(hello_error(m) == R"(hello message: member "version" is "1", must be an integer in 0..4294967295)");
    m = hello_json();
    m["version"] = -1;
    CHECK(hello_error(m) == R"(hello message: member "version" is -1, must be an integer in 0..4294967295)");
    m = hello_json();
    m["version"] = 1.0;
    CHECK(contains(hello_error(m), R"(member "version" is 1.0, must be an integer)"));
}

TEST_CASE("hello: another tool or another version is named before anything else")
{
    Json m = hello_json();
    m["tool"] = "perftest";
    CHECK(hello_error(m) == R"(peer is not qpscope: hello message member "tool" is "perftest", must be "qpscope")");
    // A later version may add members: the version is what gets named.
    m = hello_json();
    m["version"] = oob_version + 1;
    m["features"] = {"zero-copy"};
    m["test"] = "stream";
    CHECK(hello_error(m) == version_mismatch(oob_version + 1, oob_version));
    CHECK(version_mismatch(1, 2) == "peer speaks qpscope exchange version 1, this is version 2");
    CHECK(hello_error(Json{{"type", "endpoint"}}) == R"(expected the "hello" message, got "endpoint")");
    CHECK(hello_error(Json{{"kind", "hello"}}) == R"(expected the "hello" message, got a message without a type)");
}

TEST_CASE("endpoint: round trip and wire form")
{
    const Endpoint e = sample_endpoint();
    const Json m = to_message(e);
    CHECK(m.dump() == R"({"type":"endpoint","qpn":291,"psn":11259375,"lid":7,)"
                      R"("gid":"fe80:0000:0000:0000:5054:00ff:fe12:3456","gid_index":1,"rkey":3735928559,)"
                      R"("addr":140733498806272,"size":4096,"mtu":1024,"max_dest_rd_atomic":16})");
    CHECK(parse_endpoint(m) == e);
    Endpoint extremes = e;
    extremes.qpn = (1u << 24) - 1;
    extremes.psn = (1u << 24) - 1;
    extremes.lid = 0xffff;
    extremes.gid.fill(0xff);
    extremes.gid_index = 255;
    extremes.rkey = UINT32_MAX;
    extremes.addr = UINT64_MAX;
    extremes.size = UINT64_MAX;
    extremes.mtu = 4096;
    extremes.max_dest_rd_atomic = 255;
    CHECK(parse_endpoint(decode_frame(encode_frame(to_message(extremes)))) == extremes);
}

TEST_CASE("endpoint: XRC's receive QP and SRQ numbers travel only for XRC, both or neither")
{
    Endpoint e = sample_endpoint();
    CHECK_FALSE(to_message(e).contains("xrc_qpn"));  // a peer of another transport sees the old message
    e.xrc_qpn = 0x124;
    e.srqn = 0x7;
    const Json m = to_message(e);
    CHECK(m.at("xrc_qpn") == 0x124);
    CHECK(m.at("srqn") == 0x7);
    CHECK(parse_endpoint(m) == e);
    e.xrc_qpn = (1u << 24) - 1;
    e.srqn = (1u << 24) - 1;
    CHECK(parse_endpoint(decode_frame(encode_frame(to_message(e)))) == e);
    CHECK(endpoint_error("srqn", 1) == R"(endpoint message: missing member "xrc_qpn")");
    CHECK(endpoint_error("xrc_qpn", 1) == R"(endpoint message: missing member "srqn")");
    Json bad = to_message(e);
    bad["srqn"] = 1u << 24;
    CHECK(thrown<OperationError>([&] { parse_endpoint(bad); }) ==
          R"(endpoint message: member "srqn" is 16777216, must be an integer in 0..16777215 (24 bits))");
    bad = to_message(e);
    bad["xrc_qpn"] = 0;
    CHECK(thrown<OperationError>([&] { parse_endpoint(bad); }) ==
          R"(endpoint message: member "xrc_qpn" is 0, must be the peer's XRC_RECV QP number (not 0))");
}

TEST_CASE("endpoint: a GID in any IPv6 text form, 16 bytes")
{
    Endpoint e = parse_endpoint(endpoint_with("gid", "fe80::5054:ff:fe12:3456"));
    CHECK(e.gid == sample_endpoint().gid);
    e = parse_endpoint(endpoint_with("gid", "::ffff:192.0.2.1"));
    CHECK(gid_text(e.gid) == "0000:0000:0000:0000:0000:ffff:c000:0201");
    const std::string must = R"(must be a GID in IPv6 text form such as "fe80:0000:0000:0000:5054:00ff:fe12:3456" (16 bytes))";
    CHECK(endpoint_error("gid", "zz") == std::string(R"(endpoint message: member "gid" is "zz", )") + must);
    CHECK(contains(endpoint_error("gid", "fe80:0000:0000:0000:5054:00ff:fe12"), "member \"gid\" is"));  // 14 bytes
    CHECK(contains(endpoint_error("gid", "fe80:0000:0000:0000:5054:00ff:fe12:3456:0000"), "(16 bytes)"));  // 18
    CHECK(contains(endpoint_error("gid", "192.0.2.1"), "(16 bytes)"));
    CHECK(contains(endpoint_error("gid", ""), "(16 bytes)"));
    CHECK(contains(endpoint_error("gid", std::string(200, '0')), "(16 bytes)"));
    CHECK(contains(endpoint_error("gid", Json::array({0xfe, 0x80})), R"(member "gid" is [254,128], must be a GID)"));
    CHECK(contains(endpoint_error("gid", 0), R"(member "gid" is 0, must be a GID)"));
}

TEST_CASE("endpoint: ranges")
{
    CHECK(endpoint_error("psn", 1u << 24) ==
          R"(endpoint message: member "psn" is 16777216, must be an integer in 0..16777215 (24 bits))");
    CHECK(endpoint_error("qpn", 1u << 24) ==
          R"(endpoint message: member "qpn" is 16777216, must be an integer in 0..16777215 (24 bits))");
    CHECK(endpoint_error("qpn", -1) ==
          R"(endpoint message: member "qpn" is -1, must be an integer in 0..16777215 (24 bits))");
    CHECK(endpoint_error("lid", 65536) == R"(endpoint message: member "lid" is 65536, must be an integer in 0..65535)");
    CHECK(endpoint_error("gid_index", 256) ==
          R"(endpoint message: member "gid_index" is 256, must be an integer in 0..255)");
    CHECK(endpoint_error("rkey", 4294967296ull) ==
          R"(endpoint message: member "rkey" is 4294967296, must be an integer in 0..4294967295)");
    CHECK(endpoint_error("rkey", 1.5) ==
          R"(endpoint message: member "rkey" is 1.5, must be an integer in 0..4294967295)");
    CHECK(endpoint_error("addr", "0x1000") ==
          R"(endpoint message: member "addr" is "0x1000", must be an integer in 0..18446744073709551615)");
    CHECK(endpoint_error("size", true) ==
          R"(endpoint message: member "size" is true, must be an integer in 0..18446744073709551615)");
    CHECK(endpoint_error("mtu", 1000) ==
          R"(endpoint message: member "mtu" is 1000, must be one of 256, 512, 1024, 2048, 4096 (bytes))");
    CHECK(endpoint_error("mtu", 2048) == "<nothing thrown>");
    CHECK(endpoint_error("max_dest_rd_atomic", 0) ==
          R"(endpoint message: member "max_dest_rd_atomic" is 0, must be an integer in 1..255 (RDMA reads in flight))");
    CHECK(endpoint_error("max_dest_rd_atomic", 256) ==
          R"(endpoint message: member "max_dest_rd_atomic" is 256, must be an integer in 1..255 (RDMA reads in flight))");
    CHECK(endpoint_error("max_dest_rd_atomic", 1) == "<nothing thrown>");
    CHECK(endpoint_error("max_dest_rd_atomic", 255) == "<nothing thrown>");
}

TEST_CASE("endpoint: unknown, missing and mistyped members")
{
    CHECK(endpoint_error("sl", 0) == R"(endpoint message: unknown member "sl" (it has: "qpn", "psn", "lid", "gid", )"
                                     R"("gid_index", "rkey", "addr", "size", "mtu", "max_dest_rd_atomic", "xrc_qpn", "srqn"))");
    CHECK(endpoint_error("gid", removed) == R"(endpoint message: missing member "gid")");
    CHECK(endpoint_error("mtu", removed) == R"(endpoint message: missing member "mtu")");
    CHECK(endpoint_error("max_dest_rd_atomic", removed) == R"(endpoint message: missing member "max_dest_rd_atomic")");
    CHECK(endpoint_error("qpn", "291") ==
          R"(endpoint message: member "qpn" is "291", must be an integer in 0..16777215 (24 bits))");
    CHECK(endpoint_error("qpn", nullptr) ==
          R"(endpoint message: member "qpn" is null, must be an integer in 0..16777215 (24 bits))");
    CHECK(thrown<OperationError>([] { parse_endpoint(Json{{"type", "ready"}}); }) ==
          R"(expected the "endpoint" message, got "ready")");
    CHECK(thrown<OperationError>([] { parse_endpoint(Json::array()); }) == R"(expected the "endpoint" message, got [])");
}

TEST_CASE("params: a flat object, and the side's --timeout")
{
    const Json p{{"size", 64}, {"op", "send"}, {"iterations", 1000}, {"inline", true}, {"rate", 2.5}};
    CHECK(params_message(p, 10000ms).dump() ==
          R"({"type":"params","params":{"size":64,"op":"send","iterations":1000,"inline":true,"rate":2.5},"timeout_ms":10000})");
    CHECK(parse_params(params_message(p, 10000ms)).params == p);
    CHECK(parse_params(params_message(p, 500ms)).timeout == 500ms);
    CHECK(parse_params(params_message(Json::object(), 100ms)).params == Json::object());
    CHECK(parse_params(params_message(Json::object(), 86'400'000ms)).timeout == 86'400'000ms);
    CHECK(thrown<OperationError>([] { parse_params(params_message(Json{{"size", {1, 2}}}, 1000ms)); }) ==
          R"(params message: parameter "size" is [1,2], must be a string, number or boolean)");
    CHECK(thrown<OperationError>([] { parse_params(params_message(Json{{"x", nullptr}}, 1000ms)); }) ==
          R"(params message: parameter "x" is null, must be a string, number or boolean)");
    CHECK(thrown<OperationError>([] { parse_params(params_message(Json::array(), 1000ms)); }) ==
          R"(params message: member "params" is [], must be a JSON object)");
    CHECK(thrown<OperationError>([] { parse_params(Json{{"type", "params"}, {"timeout_ms", 1000}}); }) ==
          R"(params message: missing member "params")");
    // A peer of version 8 sent no timeout: refused by the hello before this.
    CHECK(thrown<OperationError>([] { parse_params(Json{{"type", "params"}, {"params", Json::object()}}); }) ==
          R"(params message: missing member "timeout_ms")");
    for (const Json& bad : {Json(99), Json(86'400'001), Json(-1), Json(1.5), Json("10")})
        CHECK(thrown<OperationError>([&] {
                  parse_params(Json{{"type", "params"}, {"params", Json::object()}, {"timeout_ms", bad}});
              }) == fmt::format(R"(params message: member "timeout_ms" is {}, must be an integer in 100..86400000 )"
                                R"((the peer's timeout in ms))",
                                bad.dump()));
    CHECK(thrown<OperationError>([] {
              parse_params(Json{{"type", "params"}, {"params", Json::object()}, {"timeout_ms", 1000}, {"x", 1}});
          }) == R"(params message: unknown member "x" (it has: "params", "timeout_ms"))");
}

TEST_CASE("ready, results and error messages")
{
    CHECK(ready_message().dump() == R"({"type":"ready"})");
    CHECK(thrown<OperationError>([] { parse_ready(ready_message()); }) == "<nothing thrown>");
    CHECK(thrown<OperationError>([] { parse_ready(Json{{"type", "ready"}, {"now", 1}}); }) ==
          R"(ready message: unknown member "now" (it has: ))");

    const Json r{{"latency_us", {{"p50", 1.9}, {"p99", 3.1}}}, {"iterations", 1000}};
    CHECK(parse_results(results_message(r)) == r);
    CHECK(thrown<OperationError>([] { parse_results(Json{{"type", "results"}, {"results", 5}}); }) ==
          R"(results message: member "results" is 5, must be a JSON object)");

    CHECK(error_message("no QP").dump() == R"({"type":"error","message":"no QP"})");
    CHECK(parse_error_message(error_message("cannot create QP — ENOMEM")) == "cannot create QP — ENOMEM");
    CHECK(parse_error_message(error_message("two\nlines\x1b[31m")) == "two lines [31m");
    // Cut to the bound on a character boundary: 1023 'a' then a 3-byte character.
    const std::string long_text = std::string(max_error_message_bytes - 1, 'a') + "—tail";
    CHECK(error_message(long_text)["message"].get<std::string>() == std::string(max_error_message_bytes - 1, 'a'));
    CHECK(contains(thrown<OperationError>([] {
                       parse_error_message(Json{{"type", "error"}, {"message", std::string(2000, 'x')}});
                   }),
                   "error message: member \"message\" is \"xxxx"));
}

TEST_CASE("stalled: why and the side's evidence, strictly")
{
    const Json evidence{{"roce_packets", {{"sent", 305}, {"received", nullptr}}}};
    CHECK(stalled_message("stalled 2 s", evidence).dump() ==
          R"({"type":"stalled","message":"stalled 2 s","evidence":{"roce_packets":{"sent":305,"received":null}}})");
    const Stalled st = parse_stalled(stalled_message("two\nlines", evidence));
    CHECK(st.message == "two lines");
    CHECK(st.evidence == evidence);
    CHECK(thrown<OperationError>([] { parse_stalled(Json{{"type", "stalled"}, {"message", "x"}, {"evidence", 3}}); }) ==
          R"(stalled message: member "evidence" is 3, must be a JSON object)");
    CHECK(thrown<OperationError>([] { parse_stalled(Json{{"type", "stalled"}, {"message", "x"}}); }) ==
          R"(stalled message: missing member "evidence")");
    CHECK(thrown<OperationError>([&] {
              parse_stalled(Json{{"type", "stalled"}, {"message", "x"}, {"evidence", evidence}, {"rc", 1}});
          }) == R"(stalled message: unknown member "rc" (it has: "message", "evidence"))");
}

TEST_CASE("compare_params names each disagreeing must-agree key")
{
    const Json local{{"size", 64}, {"op", "send"}, {"iterations", 1000}, {"mtu", 1024}};
    const Json remote{{"size", 4096}, {"op", "write"}, {"iterations", 5}, {"inline", true}};
    CHECK(compare_params(local, local, {"size", "op"}).empty());
    CHECK(compare_params(local, remote, {}).empty());
    const auto m = compare_params(local, remote, {"size", "op", "iterations", "mtu", "inline", "absent"});
    REQUIRE(m.size() == 5);
    CHECK(m[0] == "size: local 64, remote 4096");
    CHECK(m[1] == "op: local send, remote write");
    CHECK(m[2] == "iterations: local 1000, remote 5");
    CHECK(m[3] == "mtu: local 1024, remote (not set)");
    CHECK(m[4] == "inline: local (not set), remote true");
    // numbers compare by value, whatever their JSON spelling
    CHECK(compare_params(Json{{"size", 64}}, Json::parse(R"({"size":64.0})"), {"size"}).empty());
}
