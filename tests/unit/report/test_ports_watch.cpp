#include <doctest/doctest.h>
#include <fmt/format.h>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/report/ports_watch.hpp"
#include "unit/report/ports_sample.hpp"

using namespace qps;
using namespace qps::report;
using qps::test::one_port;
using qps::test::reading;
using namespace std::chrono_literals;

namespace {

const CounterChange& find(const std::vector<CounterChange>& v, std::string_view name)
{
    for (const auto& c : v)
        if (c.name == name)
            return c;
    FAIL("no counter " << name);
    return v.front();
}

}  // namespace

TEST_CASE("counter change: table of cases")
{
    struct Case {
        const char* what;
        std::optional<std::uint64_t> before, now;
        std::optional<double> elapsed;
        std::optional<std::uint64_t> delta;
        std::optional<double> per_second;
        bool reset;
    };
    constexpr std::uint64_t max = ~std::uint64_t{0};
    const Case cases[] = {
        {"first reading", std::nullopt, 100, std::nullopt, std::nullopt, std::nullopt, false},
        {"first reading of a counter that appeared later", std::nullopt, 100, 1.0, std::nullopt, std::nullopt, false},
        {"steady", 100, 100, 2.0, 0, 0.0, false},
        {"counting", 100, 350, 0.5, 250, 500.0, false},
        {"up to the 64-bit limit", max - 10, max, 1.0, 10, 10.0, false},
        {"64-bit wrap", max - 10, 5, 1.0, std::nullopt, std::nullopt, true},
        {"reset to zero", 1000, 0, 1.0, std::nullopt, std::nullopt, true},
        {"reset and counted again", 1000, 20, 1.0, std::nullopt, std::nullopt, true},
        {"no time passed: a delta but no rate", 1, 3, 0.0, 2, std::nullopt, false},
        {"unreadable now", 100, std::nullopt, 1.0, std::nullopt, std::nullopt, false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        kernel::Counter now{"x", c.now, c.now ? "" : "Input/output error"};
        const CounterChange r = counter_change(now, c.before, c.elapsed);
        CHECK(r.name == "x");
        CHECK(r.value == c.now);
        CHECK(r.delta == c.delta);
        CHECK(r.per_second == c.per_second);
        CHECK(r.reset == c.reset);
        CHECK(r.error == now.error);
    }
}

TEST_CASE("watch interval: seconds, with a clear error for anything else")
{
    CHECK(parse_watch_interval("1") == 1.0);
    CHECK(parse_watch_interval("0.5") == 0.5);
    CHECK(parse_watch_interval("2s") == 2.0);
    CHECK(parse_watch_interval("0.01") == 0.01);
    CHECK(parse_watch_interval("86400") == 86400.0);
    for (const char* bad : {"0", "-1", "0.001", "86401", "abc", "", "s", "1m", "1 ", " 1", "nan", "inf", "1e999",
                            "0x10", "1,5"}) {
        CAPTURE(bad);
        try {
            parse_watch_interval(bad);
            FAIL("accepted");
        } catch (const UsageError& e) {
            const std::string m = e.what();
            CHECK(m.find(fmt::format("the interval between samples '{}'", bad)) != std::string::npos);
            CHECK(m.find("from 0.01 to 86400") != std::string::npos);
            CHECK(m.find('\n') == std::string::npos);
        }
    }
}

TEST_CASE("RFC 3339 timestamps in UTC with milliseconds")
{
    using std::chrono::system_clock;
    CHECK(rfc3339_utc(system_clock::time_point{}) == "1970-01-01T00:00:00.000Z");
    CHECK(rfc3339_utc(system_clock::time_point{1234ms}) == "1970-01-01T00:00:01.234Z");
    // 2026-11-21T09:30:00.250Z
    CHECK(rfc3339_utc(system_clock::time_point{1795253400250ms}) == "2026-11-21T09:30:00.250Z");
    CHECK(rfc3339_utc(system_clock::time_point{-1ms}) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("counter watch: deltas against the previous sample, per second of real elapsed time")
{
    CounterWatch w(0.5);
    const auto t0 = std::chrono::steady_clock::time_point{} + 100s;
    const auto wall = std::chrono::system_clock::time_point{1795253400250ms};

    const WatchSample s1 = w.next(one_port({reading("rcvd_pkts", 5), reading("sent_pkts", 10)}), t0, wall);
    CHECK(s1.number == 1);
    CHECK(s1.timestamp == "2026-11-21T09:30:00.250Z");
    CHECK(s1.interval_s == 0.5);
    CHECK_FALSE(s1.elapsed_s);
    REQUIRE(s1.devices.size() == 1);
    CHECK(s1.devices[0].name == "rxe0");
    REQUIRE(s1.devices[0].ports.size() == 1);
    const PortSample& p1 = s1.devices[0].ports[0];
    CHECK(p1.state.raw == 4);
    CHECK(p1.counters.empty());
    REQUIRE(p1.hw_counters.size() == 2);
    for (const auto& c : p1.hw_counters)
        CHECK_FALSE(c.delta);

    // 2 s later (not the nominal 0.5): rates use the real time.
    const WatchSample s2 = w.next(one_port({reading("rcvd_pkts", 5), reading("sent_pkts", 30), reading("new", 1)}),
                                  t0 + 2s, wall + 2s);
    CHECK(s2.number == 2);
    REQUIRE(s2.elapsed_s);
    CHECK(*s2.elapsed_s == doctest::Approx(2.0));
    const auto& hw = s2.devices[0].ports[0].hw_counters;
    CHECK(find(hw, "sent_pkts").delta == 20u);
    CHECK(find(hw, "sent_pkts").per_second == doctest::Approx(10.0));
    CHECK(find(hw, "rcvd_pkts").delta == 0u);
    CHECK_FALSE(find(hw, "new").delta);  // appeared: nothing to compare with yet

    // A reset, and a counter that could not be read.
    const WatchSample s3 = w.next(one_port({reading("rcvd_pkts", 6), {"sent_pkts", std::nullopt, "EIO"},
                                            reading("new", 0)}),
                                  t0 + 3s, wall + 3s);
    const auto& hw3 = s3.devices[0].ports[0].hw_counters;
    CHECK(find(hw3, "new").reset);
    CHECK_FALSE(find(hw3, "new").delta);
    CHECK(find(hw3, "rcvd_pkts").delta == 1u);
    CHECK(find(hw3, "sent_pkts").error == "EIO");
    CHECK_FALSE(find(hw3, "sent_pkts").delta);

    // After a failed read the next reading starts over; after a reset it counts from the new value.
    const WatchSample s4 = w.next(one_port({reading("sent_pkts", 40), reading("new", 4)}), t0 + 4s, wall + 4s);
    const auto& hw4 = s4.devices[0].ports[0].hw_counters;
    CHECK_FALSE(find(hw4, "sent_pkts").delta);
    CHECK(find(hw4, "new").delta == 4u);
}

TEST_CASE("counter watch: the same counter name in both sets and on two ports is kept apart")
{
    CounterWatch w(1);
    auto report = [](std::uint64_t a, std::uint64_t b) {
        PortsReport r = one_port({reading("x", a)}, {reading("x", b)});
        PortReport second = r.devices[0].ports[0];
        second.port = 2;
        second.hw_counters.counters = {reading("x", a * 10)};
        r.devices[0].ports.push_back(second);
        return r;
    };
    const auto t0 = std::chrono::steady_clock::time_point{} + 1s;
    w.next(report(1, 100), t0, {});
    const WatchSample s = w.next(report(2, 103), t0 + 1s, {});
    const auto& ports = s.devices[0].ports;
    CHECK(find(ports[0].hw_counters, "x").delta == 1u);
    CHECK(find(ports[0].counters, "x").delta == 3u);
    CHECK(find(ports[1].hw_counters, "x").delta == 10u);
}
