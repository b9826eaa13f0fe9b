#include "src/health/counter_checks.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/decode/counters.hpp"

namespace qps::health {

std::vector<Finding> rising_counter_findings(const std::string& device, std::uint32_t port,
                                             const kernel::CounterSet& before, const kernel::CounterSet& after,
                                             const std::string& subdir, double interval_s)
{
    std::vector<Finding> out;
    auto base = [&] {
        Finding f;
        f.id = "port.counters";
        f.device = device;
        f.port = port;
        return f;
    };
    if (!after.present) {
        Finding f = base();
        f.status = Status::skipped;
        f.summary = fmt::format("{}/: not supported by this driver (no such sysfs directory)", subdir);
        out.push_back(std::move(f));
        return out;
    }
    std::size_t read = 0, known = 0;
    for (const auto& now : after.counters) {
        if (!now.value)
            continue;
        ++read;
        const auto info = decode::error_counter(now.name);
        if (!info)
            continue;
        ++known;
        const auto was = std::find_if(before.counters.begin(), before.counters.end(),
                                      [&](const kernel::Counter& c) { return c.name == now.name; });
        if (was == before.counters.end() || !was->value || *was->value == *now.value)
            continue;
        Finding f = base();
        f.seen = {{"counter", fmt::format("{}/{}", subdir, now.name)},
                  {"before", std::to_string(*was->value)},
                  {"after", std::to_string(*now.value)}};
        if (*now.value < *was->value) {
            f.status = Status::warn;
            f.summary = fmt::format("{} went down from {} to {} in {:g} s: it was reset", now.name, *was->value,
                                    *now.value, interval_s);
            f.why = "a reset hides what happened before it";
            f.fix = "find who resets the counters (a monitoring agent, perfquery -R) if that is not intended";
            out.push_back(std::move(f));
            continue;
        }
        const std::uint64_t delta = *now.value - *was->value;
        f.seen.push_back({"delta", std::to_string(delta)});
        f.status = info->severity == decode::CounterSeverity::fail   ? Status::fail
                   : info->severity == decode::CounterSeverity::warn ? Status::warn
                                                                     : Status::ok;
        f.summary = fmt::format("{} rose by {} in {:g} s (was {}, now {}): {}", now.name, delta, interval_s,
                                *was->value, *now.value, info->meaning);
        if (f.status != Status::ok) {
            f.why = std::string(info->meaning);
            f.fix = fmt::format("check {}", info->check);
        }
        out.push_back(std::move(f));
    }
    if (out.empty()) {
        Finding f = base();
        f.status = Status::ok;
        f.seen = {{"directory", subdir}, {"counters_read", std::to_string(read)},
                  {"error_counters", std::to_string(known)}};
        f.summary = fmt::format("{}/: none of {} error counters rose in {:g} s ({} counters read)", subdir, known,
                                interval_s, read);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace qps::health
