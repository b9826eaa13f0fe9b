#include "src/health/counter_checks.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::vector<Finding> qp_counter_findings(const std::string& device, std::uint32_t port, const std::string& driver,
                                         const std::vector<kernel::QpCounter>& before,
                                         const std::vector<kernel::QpCounter>& after, double interval_s)
{
    std::vector<Finding> out;
    auto base = [&] {
        Finding f;
        f.id = "port.qp_counters";
        f.device = device;
        f.port = port;
        f.seen = {{"driver", driver.empty() ? "?" : driver}};
        return f;
    };
    if (std::find(qp_counter_drivers.begin(), qp_counter_drivers.end(), driver) == qp_counter_drivers.end()) {
        Finding f = base();
        f.status = Status::skipped;
        f.summary = fmt::format("per-QP counters (rdma statistic qp): not supported by this driver ({}); the "
                                "kernel binds them for mlx5 and ionic devices only",
                                driver.empty() ? "unknown" : driver);
        out.push_back(std::move(f));
        return out;
    }
    std::size_t bound = 0;
    for (const auto& now : after) {
        if (now.dev_name != device || now.port != port)
            continue;
        ++bound;
        const auto was = std::find_if(before.begin(), before.end(), [&](const kernel::QpCounter& c) {
            return c.dev_name == now.dev_name && c.id == now.id;
        });
        if (was == before.end())
            continue;
        std::vector<std::string> qpns;
        for (std::uint32_t q : now.qpns)
            qpns.push_back(fmt::format("{:#x}", q));
        for (const auto& [name, value] : now.values) {
            const auto info = decode::error_counter(name);
            const auto old = std::find_if(was->values.begin(), was->values.end(),
                                          [&](const auto& v) { return v.first == name; });
            if (!info || info->severity == decode::CounterSeverity::info || old == was->values.end() ||
                value <= old->second)
                continue;
            Finding f = base();
            f.status = Status::warn;
            f.seen.push_back({"counter_id", std::to_string(now.id)});
            f.seen.push_back({"qpns", fmt::format("{}", fmt::join(qpns, ", "))});
            f.seen.push_back({name, fmt::format("{} -> {}", old->second, value)});
            f.summary = fmt::format("QP counter {} (QPs {}): {} rose by {} in {:g} s: {}", now.id,
                                    fmt::join(qpns, ", "), name, value - old->second, interval_s, info->meaning);
            f.why = std::string(info->meaning);
            f.fix = fmt::format("check {}; qpscope qp list --pid or --qpn names the QPs' owners", info->check);
            out.push_back(std::move(f));
        }
    }
    if (out.empty()) {
        Finding f = base();
        f.status = Status::ok;
        f.seen.push_back({"bound_counters", std::to_string(bound)});
        f.summary = bound == 0 ? fmt::format("no per-QP counter is bound on {} port {} (bind one per QP type: rdma "
                                             "statistic qp set link {}/{} auto type on)",
                                             device, port, device, port)
                               : fmt::format("{} per-QP counter{} bound: no error counter rose in {:g} s", bound,
                                             bound == 1 ? "" : "s", interval_s);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace qps::health
