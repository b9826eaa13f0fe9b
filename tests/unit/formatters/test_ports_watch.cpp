#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formatters/ports_watch.hpp"
#include "src/decode/port.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {
report::WatchSample sample(std::uint64_t number)
{
    report::WatchSample s;
    s.number = number;
    s.timestamp = "2026-11-21T09:30:00.250Z";
    s.interval_s = 0.5;
    if (number > 1)
        s.elapsed_s = 0.5;
    report::PortSample p;
    p.port = 1;
    p.state = decode::port_state(4);
    p.phys_state = decode::phys_state(5);
    report::CounterChange sent{"sent_pkts", 110, {}, std::nullopt, std::nullopt, false};
    if (number > 1) {
        sent.delta = 10;
        sent.per_second = 20;
    }
    p.hw_counters = {sent, {"rcvd_pkts", 5, {}, std::nullopt, std::nullopt, true}};
    s.devices.push_back({"rxe0", {p}});
    return s;
}

std::string json_line(const report::WatchSample& s)
{
    std::ostringstream out;
    auto p = make_json_lines_printer(out);
    p->begin_document("ports --watch");
    render_watch_sample(s, *p);
    p->end_document();
    return out.str();
}
}  // namespace

TEST_CASE("watch sample as a JSON line: one line, counters keyed by name, deltas when there are some, reset flagged")
{
    const std::string first = json_line(sample(1));
    CHECK(first.find('\n') == first.size() - 1);
    const auto j = nlohmann::json::parse(first);
    CHECK(j["schema_version"] == 2);
    CHECK(j["command"] == "ports --watch");
    CHECK(j["sample"] == 1);
    CHECK(j["timestamp"] == "2026-11-21T09:30:00.250Z");
    CHECK(j["interval_s"] == 0.5);
    CHECK(j["elapsed_s"].is_null());
    const auto& port = j["devices"][0]["ports"][0];
    CHECK(j["devices"][0]["name"] == "rxe0");
    CHECK(port["port"] == 1);
    CHECK(port["state"]["name"] == "ACTIVE");
    CHECK_FALSE(port.contains("counters"));  // the port has no counters/ directory
    // The shape `ports` has: a map keyed by counter name.
    REQUIRE(port["hw_counters"].is_object());
    CHECK(port["hw_counters"].size() == 2);
    const auto& sent = port["hw_counters"]["sent_pkts"];
    CHECK_FALSE(sent.contains("name"));
    CHECK(sent["value"].is_number_integer());
    CHECK(sent["value"] == 110);
    CHECK_FALSE(sent.contains("delta"));
    CHECK_FALSE(sent.contains("per_second"));
    CHECK(sent["reset"] == false);

    const auto second = nlohmann::json::parse(json_line(sample(2)));
    CHECK(second["elapsed_s"] == 0.5);
    const auto& c = second["devices"][0]["ports"][0]["hw_counters"];
    CHECK(c["sent_pkts"]["delta"].is_number_integer());
    CHECK(c["sent_pkts"]["delta"] == 10);
    CHECK(c["sent_pkts"]["per_second"] == 20.0);
    CHECK(c["rcvd_pkts"]["reset"] == true);
    CHECK_FALSE(c["rcvd_pkts"].contains("delta"));
}

TEST_CASE("watch sample as text: a table per counter set")
{
    std::ostringstream out;
    auto p = make_printer({.json = false, .color = false}, out);
    p->begin_document("ports --watch");
    render_watch_sample(sample(2), *p);
    p->end_document();
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("COUNTER    VALUE  DELTA  PER SECOND  RESET") != std::string::npos);
    CHECK(text.find("sent_pkts  110    10     20          no") != std::string::npos);
    CHECK(text.find("rcvd_pkts  5      -      -           yes") != std::string::npos);
}

TEST_CASE("terminal frame: home, every line cleared to its end, the rest of the screen cleared")
{
    CHECK(terminal_frame("a\nbc\n") == "\x1b[Ha\x1b[K\nbc\x1b[K\n\x1b[J");
    CHECK(terminal_frame("") == "\x1b[H\x1b[J");
}
