#include "src/report/latency.hpp"

#include <fmt/format.h>

#include "src/error.hpp"
#include "src/json.hpp"

namespace qps::report {

Spread spread_of(const LatencyHistogram& h)
{
    Spread s;
    s.samples = h.count();
    if (s.samples == 0)
        return s;
    s.min_ns = h.min();
    s.max_ns = h.max();
    s.mean_ns = h.mean();
    s.stddev_ns = h.stddev();
    s.p50_ns = h.quantile(0.50);
    s.p90_ns = h.quantile(0.90);
    s.p99_ns = h.quantile(0.99);
    s.p999_ns = h.quantile(0.999);
    s.p9999_ns = h.quantile(0.9999);
    return s;
}

LatencyStats summarize(std::uint32_t size, const LatencyHistogram& round_trip,
                       const LatencyHistogram& period, double seconds, bool aborted, const std::string& reason,
                       std::size_t histogram_rows)
{
    LatencyStats s;
    s.size = size;
    s.seconds = seconds;
    s.aborted = aborted;
    s.abort_reason = reason;
    s.period = spread_of(period);
    s.set_round_trip(spread_of(round_trip));
    if (s.samples == 0)
        return s;
    if (histogram_rows)
        s.histogram = round_trip.coarse(histogram_rows);
    return s;
}

namespace {

Json spread_json(const Spread& s)
{
    return {{"samples", s.samples},     {"min_ns", s.min_ns}, {"max_ns", s.max_ns},     {"mean_ns", s.mean_ns},
            {"stddev_ns", s.stddev_ns}, {"p50_ns", s.p50_ns}, {"p90_ns", s.p90_ns},     {"p99_ns", s.p99_ns},
            {"p99_9_ns", s.p999_ns},    {"p99_99_ns", s.p9999_ns}};
}

Spread spread_from_json(const Json& j)
{
    Spread s;
    s.samples = j.at("samples").get<std::uint64_t>();
    s.min_ns = j.at("min_ns").get<std::uint64_t>();
    s.max_ns = j.at("max_ns").get<std::uint64_t>();
    s.mean_ns = j.at("mean_ns").get<double>();
    s.stddev_ns = j.at("stddev_ns").get<double>();
    s.p50_ns = j.at("p50_ns").get<std::uint64_t>();
    s.p90_ns = j.at("p90_ns").get<std::uint64_t>();
    s.p99_ns = j.at("p99_ns").get<std::uint64_t>();
    s.p999_ns = j.at("p99_9_ns").get<std::uint64_t>();
    s.p9999_ns = j.at("p99_99_ns").get<std::uint64_t>();
    return s;
}

}  // namespace

Json to_json(const LatencyStats& s)
{
    Json j{{"size", s.size}};
    j.update(spread_json(s.round_trip()));
    j["seconds"] = s.seconds;
    j["aborted"] = s.aborted;
    j["period"] = spread_json(s.period);
    if (s.aborted)
        j["abort_reason"] = s.abort_reason;
    if (s.atomic_counter)
        j["atomic_counter"] = *s.atomic_counter;
    if (!s.histogram.empty()) {
        Json rows = Json::array();
        for (const auto& b : s.histogram)
            rows.push_back({{"low_ns", b.low_ns}, {"high_ns", b.high_ns}, {"count", b.count}});
        j["histogram"] = rows;
    }
    if (!s.threads.empty()) {
        Json threads = Json::array();
        for (const auto& t : s.threads) {
            Json one = to_json(t);
            one["thread"] = t.thread;
            one["cpu"] = t.cpu;
            threads.push_back(std::move(one));
        }
        j["threads"] = std::move(threads);
    }
    return j;
}

LatencyStats latency_stats_from_json(const Json& j)
{
    try {
        LatencyStats s;
        s.size = j.at("size").get<std::uint32_t>();
        s.set_round_trip(spread_from_json(j));
        s.seconds = j.at("seconds").get<double>();
        s.aborted = j.at("aborted").get<bool>();
        s.abort_reason = j.value("abort_reason", "");
        if (j.contains("atomic_counter"))
            s.atomic_counter = j.at("atomic_counter").get<std::uint64_t>();
        if (j.contains("period"))
            s.period = spread_from_json(j.at("period"));
        if (j.contains("threads"))
            for (const auto& t : j.at("threads")) {
                LatencyStats one = latency_stats_from_json(t);
                one.thread = t.at("thread").get<std::uint32_t>();
                one.cpu = t.at("cpu").get<int>();
                s.threads.push_back(std::move(one));
            }
        return s;
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the peer's results are malformed: {}", e.what()));
    }
}

}  // namespace qps::report
