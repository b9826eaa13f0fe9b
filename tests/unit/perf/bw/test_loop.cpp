#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "commands/spellings.hpp"
#include "src/error.hpp"
#include "src/ops/bw.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/cpu.hpp"
#include "src/perf/link_common.hpp"
#include "src/perf/rate_windows.hpp"
#include "src/report/bandwidth.hpp"

using namespace qps::perf;
using namespace qps::ops;  // BwOptions

TEST_CASE("windows: a steady rate gives peak = min = average")
{
    WindowMeter m(1000, 100);  // windows of 100 ticks from tick 1000
    for (std::uint64_t t = 1010; t <= 2000; t += 10)
        m.add(t, 50);  // 5 bytes per tick
    m.finish(2000);
    CHECK(m.windows() == 10);
    CHECK(m.bytes() == 100 * 50);
    CHECK(m.average() == doctest::Approx(5.0));
    CHECK(m.peak() == doctest::Approx(5.0));
    CHECK(m.minimum() == doctest::Approx(5.0));
}

TEST_CASE("windows: a batch is spread over the time since the previous one")
{
    WindowMeter m(0, 100);
    m.add(300, 3000);  // one completion covering three windows: 10 bytes/tick in each
    m.finish(300);
    CHECK(m.windows() == 3);
    CHECK(m.peak() == doctest::Approx(10.0));
    CHECK(m.minimum() == doctest::Approx(10.0));
}

TEST_CASE("windows: a stall shows as a window of 0, a burst as the peak")
{
    WindowMeter m(0, 100);
    m.add(100, 1000);  // window 0: 10/tick
    m.add(300, 0);     // windows 1, 2: nothing
    m.add(400, 4000);  // window 3: 40/tick
    m.finish(400);
    CHECK(m.windows() == 4);
    CHECK(m.minimum() == doctest::Approx(0.0));
    CHECK(m.peak() == doctest::Approx(40.0));
    CHECK(m.average() == doctest::Approx(5000.0 / 400));
}

TEST_CASE("windows: a partial last window counts from half a window on; a span shorter than a window reports its average")
{
    WindowMeter m(0, 100);
    m.add(100, 1000);
    m.add(140, 4000);  // 40 % of a window at 100/tick: left out
    m.finish(140);
    CHECK(m.windows() == 1);
    CHECK(m.peak() == doctest::Approx(10.0));

    WindowMeter half(0, 100);
    half.add(100, 1000);
    half.add(150, 5000);  // half a window at 100/tick: counts at its rate
    half.finish(150);
    CHECK(half.windows() == 2);
    CHECK(half.peak() == doctest::Approx(100.0));
    CHECK(half.minimum() == doctest::Approx(10.0));

    WindowMeter short_span(0, 1000);
    short_span.add(10, 100);
    short_span.finish(20);
    CHECK(short_span.windows() == 0);
    CHECK(short_span.peak() == doctest::Approx(5.0));
    CHECK(short_span.minimum() == doctest::Approx(5.0));
}

TEST_CASE("windows: bytes at the same instant stay in the current window")
{
    WindowMeter m(0, 100);
    m.add(50, 500);
    m.add(50, 500);
    m.add(100, 0);
    m.finish(100);
    CHECK(m.windows() == 1);
    CHECK(m.peak() == doctest::Approx(10.0));
}

namespace {
// WindowMeter as it was before whole windows were closed at once: one
// window at a time. The meter must give exactly its figures.
struct OneByOne {
    std::uint64_t window, last, window_end, windows = 0;
    double current = 0, peak = 0, min = 0;
    OneByOne(std::uint64_t start, std::uint64_t w) : window(w), last(start), window_end(start + w) {}
    void add(std::uint64_t now, std::uint64_t bytes)
    {
        if (now <= last) {
            current += static_cast<double>(bytes);
            return;
        }
        const double per_tick = static_cast<double>(bytes) / static_cast<double>(now - last);
        for (std::uint64_t from = last; from < now;) {
            const std::uint64_t to = std::min(now, window_end);
            current += per_tick * static_cast<double>(to - from);
            from = to;
            if (from == window_end) {
                peak = windows == 0 ? current : std::max(peak, current);
                min = windows == 0 ? current : std::min(min, current);
                ++windows;
                current = 0;
                window_end += window;
            }
        }
        last = now;
    }
};
}  // namespace

TEST_CASE("windows: batches spanning many windows give exactly what closing them one by one gives")
{
    std::uint64_t seed = 12345;
    const auto next = [&seed](std::uint64_t n) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return (seed >> 33) % n;
    };
    for (int round = 0; round < 200; ++round) {
        const std::uint64_t window = 1 + next(50), start = next(1000);
        WindowMeter m(start, window);
        OneByOne ref(start, window);
        std::uint64_t t = start;
        for (int i = 0; i < 300; ++i) {
            t += next(4) == 0 ? next(40 * window) : next(window);  // gaps of many windows, and short ones
            const std::uint64_t bytes = next(5) == 0 ? 0 : 1 + next(1 << 20);
            m.add(t, bytes);
            ref.add(t, bytes);
        }
        REQUIRE(m.windows() == ref.windows);
        if (ref.windows > 0) {
            CHECK(m.peak() == ref.peak / static_cast<double>(window));
            CHECK(m.minimum() == ref.min / static_cast<double>(window));
        }
    }
}

TEST_CASE("cpu: use of a span in percent of one CPU")
{
    const CpuUse u = cpu_use({1.0, 0.5}, {1.6, 0.7}, 1.0);
    CHECK(u.user_s == doctest::Approx(0.6));
    CHECK(u.sys_s == doctest::Approx(0.2));
    CHECK(u.percent() == doctest::Approx(80.0));
    CHECK(cpu_use({1, 1}, {1, 1}, 0).percent() == 0.0);
    const CpuTimes now = cpu_times_now();
    CHECK(now.user_s + now.sys_s > 0.0);
}

TEST_CASE("data pattern: depends on offset and size; a check names the first difference")
{
    std::vector<std::uint8_t> a(4096), b(4096);
    fill_pattern(a.data(), 4096);
    CHECK_FALSE(check_pattern(a.data(), 4096));
    fill_pattern(b.data(), 2048);
    CHECK(check_pattern(b.data(), 4096));  // another size's data is not this size's
    a[1000] ^= 0x5a;
    const auto bad = check_pattern(a.data(), 4096);
    REQUIRE(bad);
    CHECK(bad->find("byte 1000 of 4096") != std::string::npos);
    std::vector<std::uint8_t> zeros(64, 0);
    CHECK(check_pattern(zeros.data(), 64));  // nothing arrived is a mismatch
}

TEST_CASE("bw options: every bad value is named with what is valid")
{
    auto message = [](auto change) {  // as bw spells them
        BwOptions o;
        change(o);
        try {
            check_bw_options(o);
        } catch (const qps::UsageError& e) {
            return e.naming([](qps::Given g) {
                const std::string_view perftest = qps::commands::other_option_for(g);
                return std::string(perftest.empty() ? qps::commands::option_for(g) : perftest);
            });
        }
        return std::string("accepted");
    };
    CHECK(message([](BwOptions&) {}) == "accepted");
    CHECK(message([](BwOptions& o) { o.op = Op::read; o.transport = IBV_QPT_UC; }).find("UC send, write") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.op = Op::send; o.transport = IBV_QPT_UD; }) == "accepted");
    CHECK(message([](BwOptions& o) { o.cq_mod = 200; }).find("--cq-mod 200 must be 1..--tx-depth (128)") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.post_list = 129; }).find("--post-list 129") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.qps = 65; }).find("valid are 1..64") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.window_ms = 0; }).find("--window") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.unit = "gbit"; }).find("valid are Gb/s, GB/s, GiB/s") != std::string::npos);
    CHECK(message([](BwOptions& o) { o.sizes = {0}; }).find("at least 1 byte") != std::string::npos);
}

TEST_CASE("rate units: bits and bytes, decimal and binary")
{
    using qps::report::rate_unit;
    CHECK(rate_unit("Gb/s").bytes_per_s == 125e6);
    CHECK(rate_unit("GB/s").bytes_per_s == 1e9);
    CHECK(rate_unit("GiB/s").bytes_per_s == 1073741824.0);
    CHECK(rate_unit("MiB/s").bytes_per_s == 1048576.0);
    CHECK_THROWS_AS(rate_unit("gbps"), qps::UsageError);
}

TEST_CASE("bw side stats: JSON round trip, null directions, malformed peer reports")
{
    qps::report::SideStats s;
    s.size = 65536;
    s.tx = qps::report::DirectionStats{2000, 131072000, 1.5, 87381333.3, 9e7, 8e7, 150, 1333.3};
    s.cpu_user_s = 1.2;
    s.cpu_percent = 99.5;
    s.verified = "ok";
    const auto back = qps::report::side_stats_from_json(qps::report::to_json(s));
    REQUIRE(back.tx);
    CHECK_FALSE(back.rx);
    CHECK(back.tx->bytes == 131072000);
    CHECK(back.tx->windows == 150);
    CHECK(back.tx->peak_bytes_per_s == 9e7);
    CHECK(back.cpu_percent == 99.5);
    CHECK(back.verified == "ok");
    auto j = qps::report::to_json(s);
    j.erase("cpu_percent");
    CHECK_THROWS_AS(qps::report::side_stats_from_json(j), qps::OperationError);
    j = qps::report::to_json(s);
    j["tx"]["bytes"] = "many";
    CHECK_THROWS_AS(qps::report::side_stats_from_json(j), qps::OperationError);
}

TEST_CASE("test parameters: the server adopts what the client sends; a bad value is named")
{
    LinkOptions client;
    client.op = Op::write;
    client.transport = IBV_QPT_UC;
    client.sizes = {64, 4096};
    client.iterations = 77;
    client.duration_s = 2.5;
    client.inline_mode = InlineMode::off;
    client.mtu = IBV_MTU_2048;
    LinkOptions server;
    adopt_common(server, common_params(client));
    CHECK(server.op == Op::write);
    CHECK(server.transport == IBV_QPT_UC);
    CHECK(server.sizes == client.sizes);
    CHECK(server.iterations == 77);
    CHECK(server.duration_s == 2.5);
    CHECK(server.inline_mode == InlineMode::off);
    CHECK(server.mtu == IBV_MTU_2048);
    auto p = common_params(client);
    p["op"] = "atomic";
    try {
        adopt_common(server, p);
        FAIL("accepted");
    } catch (const qps::OperationError& e) {
        CHECK(std::string(e.what()) == "the peer asked for op 'atomic': this side knows send, write, read, fadd, cas");
    }
    p = common_params(client);
    p["mtu"] = 1000;
    CHECK_THROWS_WITH_AS(adopt_common(server, p), doctest::Contains("MTU of 1000 bytes"), qps::OperationError);
}

TEST_CASE("the traffic class travels to the server, and the connection mode is named for both sides to compare")
{
    LinkOptions client;
    client.knobs.traffic_class = 104;
    client.traffic_class_given = true;
    client.cm = true;
    LinkOptions server;
    CHECK(common_params(client)["connection"] == "rdma_cm");
    CHECK(common_params(server)["connection"] == "manual");
    adopt_common(server, common_params(client));
    CHECK(server.traffic_class_given);
    CHECK(server.knobs.traffic_class == 104);
    CHECK_FALSE(server.cm);  // not adopted: each side's own, compared by the exchange
    LinkOptions plain;
    adopt_common(plain, common_params(LinkOptions{}));
    CHECK_FALSE(plain.traffic_class_given);  // 0: the QP's default, nothing set
    CHECK(plain.knobs.traffic_class == 0);
    auto p = common_params(client);
    p["tclass"] = 256;
    CHECK_THROWS_WITH_AS(adopt_common(server, p), doctest::Contains("traffic class 256: valid are 0..255"),
                         qps::OperationError);
}

TEST_CASE("a server refuses a client's knob beyond its field's width, naming every range")
{
    LinkOptions server;
    auto p = common_params(LinkOptions{});
    p["sl"] = 16;
    CHECK_THROWS_WITH_AS(adopt_common(server, p),
                         doctest::Contains("SL 16, flow label 0, P_Key index 0, RNR retry 7 and RNR timer code 12: "
                                           "valid are 0..15, 0..0xfffff, 0..65535, 0..7 and 0..31"),
                         qps::OperationError);
    p = common_params(LinkOptions{});
    p["flow-label"] = 0x100000;
    CHECK_THROWS_AS(adopt_common(server, p), qps::OperationError);
    p = common_params(LinkOptions{});
    p["qp-timeout"] = 32;
    CHECK_THROWS_WITH_AS(adopt_common(server, p),
                         doctest::Contains("ACK timeout code 32 and retry count 7: valid are 0..31 and 0..7"),
                         qps::OperationError);
    p = common_params(LinkOptions{});
    p["sl"] = 15;
    p["flow-label"] = 0xfffff;
    p["qp-timeout"] = 31;
    adopt_common(server, p);  // the largest values are taken
    CHECK(server.knobs.sl == 15);
    CHECK(server.knobs.flow_label == 0xfffff);
    CHECK(server.knobs.ack_timeout == 31);
}
