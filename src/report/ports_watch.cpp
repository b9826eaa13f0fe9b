#include "src/report/ports_watch.hpp"

#include <charconv>
#include <cmath>
#include <ctime>
#include <fmt/format.h>

#include "src/error.hpp"

namespace qps::report {

using steady = std::chrono::steady_clock;

double parse_watch_interval(std::string_view text)
{
    std::string_view number = text;
    if (number.ends_with('s'))
        number.remove_suffix(1);
    double v = 0;
    const char* last = number.data() + number.size();
    const auto [p, ec] = std::from_chars(number.data(), last, v);
    if (number.empty() || ec != std::errc{} || p != last || !std::isfinite(v) || v < min_watch_interval_s ||
        v > max_watch_interval_s)
        throw UsageError(fmt::format("{} '{}': give the interval in seconds, from {} to {} (e.g. 1, 0.5, 2s)",
                                     given(Given::interval), text, min_watch_interval_s, max_watch_interval_s));
    return v;
}

CounterChange counter_change(const kernel::Counter& now, std::optional<std::uint64_t> before,
                             std::optional<double> elapsed_s)
{
    CounterChange c;
    c.name = now.name;
    c.value = now.value;
    c.error = now.error;
    if (!now.value || !before)
        return c;
    if (*now.value < *before) {  // wrapped or reset: how much happened is unknown
        c.reset = true;
        return c;
    }
    c.delta = *now.value - *before;
    if (elapsed_s && *elapsed_s > 0)
        c.per_second = static_cast<double>(*c.delta) / *elapsed_s;
    return c;
}

std::string rfc3339_utc(std::chrono::system_clock::time_point t)
{
    const auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const long long frac = ms - static_cast<long long>(secs) * 1000;
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

std::vector<CounterChange> CounterWatch::changes(const std::string& device, std::uint32_t port,
                                                 std::string_view set, const kernel::CounterSet& counters,
                                                 std::optional<double> elapsed_s,
                                                 std::map<Key, std::uint64_t>& readings) const
{
    std::vector<CounterChange> out;
    for (const auto& c : counters.counters) {
        Key key{device, port, set, c.name};
        std::optional<std::uint64_t> before;
        if (auto it = previous_.find(key); it != previous_.end())
            before = it->second;
        out.push_back(counter_change(c, before, elapsed_s));
        if (c.value)
            readings.emplace(std::move(key), *c.value);
    }
    return out;
}

WatchSample CounterWatch::next(const PortsReport& report, steady::time_point now,
                               std::chrono::system_clock::time_point wall)
{
    WatchSample s;
    s.number = ++samples_;
    s.timestamp = rfc3339_utc(wall);
    s.interval_s = interval_s_;
    if (last_)
        s.elapsed_s = std::chrono::duration<double>(now - *last_).count();
    std::map<Key, std::uint64_t> readings;
    for (const auto& dev : report.devices) {
        DeviceSample& d = s.devices.emplace_back();
        d.name = dev.name;
        for (const auto& port : dev.ports) {
            PortSample& p = d.ports.emplace_back();
            p.port = port.port;
            p.state = port.state;
            p.phys_state = port.phys_state;
            p.counters = changes(dev.name, port.port, "counters", port.counters, s.elapsed_s, readings);
            p.hw_counters = changes(dev.name, port.port, "hw_counters", port.hw_counters, s.elapsed_s, readings);
        }
    }
    previous_ = std::move(readings);
    last_ = now;
    return s;
}

}  // namespace qps::report
