// The exchange's steps between two real Channels on loopback, and what each
// side reports when the other misbehaves.
#include <doctest/doctest.h>
#include <future>
#include <string>
#include <tuple>

#include "src/error.hpp"
#include "src/net/exchange.hpp"
#include "src/net/interrupt.hpp"
#include "tests/unit/net/net_test_util.hpp"

using namespace qps::net;
using namespace qps::net::test;
using qps::Json;
using namespace std::chrono_literals;
using qps::OperationError;
using qps::TimeoutError;
using qps::UsageError;

namespace {

struct Sides {
    Exchange server;
    Exchange client;
};

// A connected client/server pair of Exchanges. The two sides run on two
// threads: each step waits for the other thread up to the hang guard.
Sides connect_pair(const std::string& server_test = "ping-pong", const std::string& client_test = "ping-pong",
                   std::chrono::milliseconds step = hang_guard)
{
    Listener listener(0);
    auto accepted = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel client = Channel::connect("127.0.0.1", listener.port(), hang_guard);
    return Sides{Exchange(accepted.get(), Role::server, server_test, step),
                 Exchange(std::move(client), Role::client, client_test, step)};
}

Endpoint endpoint(std::uint32_t qpn)
{
    Endpoint e;
    e.qpn = qpn;
    e.psn = qpn + 1;
    e.gid[15] = static_cast<std::uint8_t>(qpn);
    e.rkey = qpn * 3;
    e.addr = 0x1000 * qpn;
    e.size = 64;
    return e;
}

// What `f` throws, whatever its kind, with its kind.
template <class F>
std::string failure(F&& f)
{
    try {
        f();
    } catch (const TimeoutError& e) {
        return std::string("timeout: ") + e.what();
    } catch (const UsageError& e) {
        return std::string("usage: ") + e.what();
    } catch (const OperationError& e) {
        return std::string("failed: ") + e.what();
    }
    return "<nothing thrown>";
}

}  // namespace

TEST_CASE("a whole exchange: hello, params, endpoints, ready, results")
{
    Sides s = connect_pair();
    const Json params{{"size", 64}, {"op", "send"}, {"iterations", 1000}};
    auto client = std::async(std::launch::async, [&] {
        const Hello h = s.client.hello();
        CHECK(h.role == "server");
        CHECK(s.client.params(params, {"size", "op"}) == params);
        const Endpoint remote = s.client.endpoints(endpoint(10));
        s.client.ready();
        const Json results = s.client.results(Json{{"side", "client"}});
        return std::pair(remote, results);
    });
    const Hello h = s.server.hello();
    CHECK(h == Hello{oob_version, "qpscope", "ping-pong", "client"});
    CHECK(s.server.params(params, {"size", "op"}) == params);
    CHECK(s.server.endpoints(endpoint(20)) == endpoint(10));
    s.server.ready(hang_guard);
    CHECK(s.server.results(Json{{"side", "server"}}, hang_guard) == Json{{"side", "client"}});
    const auto [remote, results] = client.get();
    CHECK(remote == endpoint(20));
    CHECK(results == Json{{"side", "server"}});
}

TEST_CASE("each side learns the other's --timeout with the parameters; both beat by the smaller")
{
    Listener listener(0);
    auto accepted = std::async(std::launch::async, [&] { return listener.accept(hang_guard); });
    Channel channel = Channel::connect("127.0.0.1", listener.port(), hang_guard);
    Exchange server(accepted.get(), Role::server, "ping-pong", 30000ms);
    Exchange client(std::move(channel), Role::client, "ping-pong", 500ms);
    CHECK(client.peer_timeout() == 500ms);  // not known yet: its own
    auto c = std::async(std::launch::async, [&] {
        client.hello();
        client.params(Json{{"size", 64}}, {});
    });
    server.hello();
    server.params(Json{{"size", 64}}, {});
    c.get();
    CHECK(server.peer_timeout() == 500ms);
    CHECK(client.peer_timeout() == 30000ms);
    CHECK(server.beat_limit() == 500ms);
    CHECK(client.beat_limit() == 500ms);
}

TEST_CASE("parameters that must agree are named on both sides")
{
    Sides s = connect_pair();
    auto client = std::async(std::launch::async, [&] {
        s.client.hello();
        return failure([&] { s.client.params(Json{{"size", 64}, {"iterations", 10}}, {"size"}); });
    });
    s.server.hello();
    const std::string server_error = failure([&] { s.server.params(Json{{"size", 4096}, {"iterations", 99}}, {"size"}); });
    CHECK(server_error == fmt::format("usage: parameters differ from peer {}: size: local 4096, remote 64",
                                      s.server.channel().peer()));
    CHECK(client.get() == fmt::format("usage: parameters differ from peer {}: size: local 64, remote 4096",
                                      s.client.channel().peer()));
}

TEST_CASE("another test on the other side")
{
    Sides s = connect_pair("bw", "ping-pong");
    auto client = std::async(std::launch::async, [&] { return failure([&] { s.client.hello(); }); });
    CHECK(failure([&] { s.server.hello(); }) ==
          fmt::format("usage: peer {} runs qpscope ping-pong, this side runs qpscope bw: run the same test on both sides",
                      s.server.channel().peer()));
    CHECK(contains(client.get(), "runs qpscope bw, this side runs qpscope ping-pong"));
}

TEST_CASE("another exchange version is named both ways")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "ping-pong", 1000ms);
    // A later qpscope: the next version, with a member this version does not know.
    const std::uint32_t later = oob_version + 1;
    const std::string mismatch = fmt::format("peer speaks qpscope exchange version {}, this is version {}", later,
                                             oob_version);
    p.raw.write(frame_of(fmt::format(
        R"({{"type":"hello","version":{},"tool":"qpscope","test":"ping-pong","role":"client","window":8}})", later)));
    CHECK(failure([&] { server.hello(); }) ==
          fmt::format("failed: exchange with {}: {}", server.channel().peer(), mismatch));
    // The raw client still got this side's hello (so it can name the mismatch
    // too), then the reason this side gave up.
    Channel client = Channel::adopt(::dup(p.raw.fd()));
    const Json hello = client.receive(500ms);
    CHECK(hello["version"] == oob_version);
    const Json error = client.receive(500ms);
    CHECK(message_type(error) == "error");
    CHECK(contains(parse_error_message(error), mismatch));
}

TEST_CASE("a message of the wrong type at a step")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "ping-pong", 1000ms);
    p.raw.write(frame_of(this_version_hello()));
    server.hello();
    p.raw.write(frame_of(R"({"type":"ready"})"));
    CHECK(failure([&] { server.params(Json::object(), {}); }) ==
          fmt::format("failed: exchange with {}: expected the \"params\" message, got \"ready\"", server.channel().peer()));
    Channel client = Channel::adopt(::dup(p.raw.fd()));
    CHECK(message_type(client.receive(500ms)) == "hello");
    CHECK(message_type(client.receive(500ms)) == "params");
    CHECK(contains(parse_error_message(client.receive(500ms)), "expected the \"params\" message, got \"ready\""));
}

TEST_CASE("an invalid endpoint is named, and the peer is told")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "bw", 1000ms);
    Json bad = to_message(endpoint(1));
    bad["psn"] = 1u << 24;
    p.raw.write(frame_of(bad.dump()));
    CHECK(failure([&] { server.endpoints(endpoint(2)); }) ==
          fmt::format("failed: exchange with {}: endpoint message: member \"psn\" is 16777216, must be an integer in "
                      "0..16777215 (24 bits)",
                      server.channel().peer()));
}

TEST_CASE("a side that gives up between steps tells the peer why")
{
    Sides s = connect_pair();
    auto client = std::async(std::launch::async, [&] {
        s.client.hello();
        s.client.abort("cannot create the QP: ibv_create_qp failed: ENOMEM");
        s.client.abort("only the first reason is sent");
    });
    s.server.hello();
    client.get();
    CHECK(failure([&] { s.server.endpoints(endpoint(1)); }) ==
          fmt::format("failed: exchange with {}: peer gave up: cannot create the QP: ibv_create_qp failed: ENOMEM",
                      s.server.channel().peer()));
}

TEST_CASE("a stalled run: both sides see each other's evidence, the peer reports that it gave up")
{
    Sides s = connect_pair();
    s.server.answer_stalls_with([] { return Json{{"received", 0}}; });
    auto client = std::async(std::launch::async, [&] {
        s.client.hello();
        const auto theirs = s.client.stalled("client side ended the run: no completion in 2 s", Json{{"sent", 305}},
                                             hang_guard);
        // Once stalled, the side has given up: a second call sends nothing and waits for nothing.
        const auto again = s.client.stalled("again", Json::object(), 2000ms);
        return std::make_pair(theirs, again);
    });
    s.server.hello();
    CHECK(failure([&] { s.server.ready(); }) ==
          fmt::format("failed: exchange with {}: peer gave up: client side ended the run: no completion in 2 s",
                      s.server.channel().peer()));
    REQUIRE(s.server.peer_evidence());
    CHECK(*s.server.peer_evidence() == Json{{"sent", 305}});
    const auto [theirs, again] = client.get();
    REQUIRE(theirs);
    CHECK(*theirs == Json{{"received", 0}});
    CHECK_FALSE(again);
}

TEST_CASE("a stalled side whose peer does not answer waits only as long as it said")
{
    Sides s = connect_pair();
    auto client = std::async(std::launch::async, [&] {
        s.client.hello();
        const auto t0 = Clock::now();
        const ThreadTime t;
        const auto theirs = s.client.stalled("stalled", Json::object(), 300ms);
        return std::make_tuple(theirs.has_value(), t.blocked_ms(), ms_since(t0));
    });
    s.server.hello();  // then silent: it never reads the stalled message
    const auto [answered, blocked, took] = client.get();
    CHECK_FALSE(answered);
    CHECK(took >= 300);
    CHECK(blocked <= 2 * 300);  // asleep no longer than twice what it said
}

TEST_CASE("a peer that connects and says nothing")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "ping-pong", 200ms);
    const auto start = Clock::now();
    const ThreadTime t;
    CHECK(failure([&] { server.hello(); }) ==
          fmt::format("timeout: exchange with {}: nothing received within 200 ms while waiting for the \"hello\" "
                      "message: the peer stopped answering, the connection still open",
                      server.channel().peer()));
    CHECK(t.blocked_ms() <= 2 * 200);
    CHECK(ms_since(start) >= 200);
}

TEST_CASE("a peer that closes mid-exchange")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "ping-pong", 1000ms);
    p.raw.write(frame_of(this_version_hello()));
    server.hello();
    {
        Channel client = Channel::adopt(::dup(p.raw.fd()));
        CHECK(message_type(client.receive(500ms)) == "hello");  // read it all: a clean close, not a reset
    }
    p.raw.close();
    CHECK(failure([&] { server.params(Json::object(), {}); }) ==
          fmt::format("timeout: exchange with {}: the peer closed the connection while we waited for the \"params\" "
                      "message",
                      server.channel().peer()));
}

TEST_CASE("an interrupted side still tells the peer why it leaves")
{
    RawPair p;
    Exchange server(std::move(p.server), Role::server, "ping-pong", hang_guard);
    auto waiting = std::async(std::launch::async, [&] { return thrown<Interrupted>([&] { server.hello(); }); });
    CHECK(waiting.wait_for(100ms) == std::future_status::timeout);
    request_interrupt();
    REQUIRE(waiting.wait_for(hang_guard) == std::future_status::ready);
    const std::string e = waiting.get();
    clear_interrupt();
    CHECK(e == fmt::format("interrupted while waiting for the \"hello\" message from {}", server.channel().peer()));
    Channel client = Channel::adopt(::dup(p.raw.fd()));
    CHECK(parse_error_message(client.receive(500ms)) == e);
}
