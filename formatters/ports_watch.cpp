#include "formatters/ports_watch.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace qps::formatters {

namespace {

using u64 = std::uint64_t;

template <class T>
Value optional_value(const std::optional<T>& v)
{
    return v ? Value{*v} : Value{};
}

void render_changes(Printer& p, std::string_view key, const std::vector<report::CounterChange>& changes)
{
    if (changes.empty())
        return;
    const bool any_error = std::any_of(changes.begin(), changes.end(), [](const auto& c) { return !c.value; });
    Table t{{{"name", "COUNTER"}, {"value", "VALUE"}, {"delta", "DELTA"}, {"per_second", "PER SECOND"},
             {"reset", "RESET"}},
            {},
            true};
    if (any_error)
        t.columns.push_back({"error", "ERROR"});
    for (const auto& c : changes)
        t.rows.push_back({c.name, optional_value(c.value), optional_value(c.delta), optional_value(c.per_second), c.reset,
                          c.error.empty() ? Value{} : Value{c.error}});
    p.table(key, key, t);
}

}  // namespace

void render_watch_sample(const report::WatchSample& s, Printer& p)
{
    p.field("sample", "sample", u64{s.number});
    p.field("timestamp", "time", s.timestamp);
    p.field("interval_s", "interval (s)", s.interval_s);
    p.field("elapsed_s", "since previous (s)", optional_value(s.elapsed_s));
    ListScope devices(p, "devices");
    for (const auto& d : s.devices) {
        ObjectScope dev(p, "", d.name);
        p.field("name", "name", d.name);
        ListScope ports(p, "ports");
        for (const auto& port : d.ports) {
            ObjectScope scope(p, "", fmt::format("port {}", port.port));
            p.field("port", "port", u64{port.port});
            p.field("state", "state", port.state);
            p.field("phys_state", "physical state", port.phys_state);
            render_changes(p, "counters", port.counters);
            render_changes(p, "hw_counters", port.hw_counters);
        }
    }
}

std::string terminal_frame(std::string_view text)
{
    constexpr std::string_view home = "\x1b[H", clear_line_end = "\x1b[K", clear_below = "\x1b[J";
    std::string frame(home);
    for (const char ch : text) {
        if (ch == '\n')
            frame += clear_line_end;
        frame += ch;
    }
    frame += clear_below;
    return frame;
}

}  // namespace qps::formatters
