#include "src/report/bandwidth.hpp"

#include <fmt/format.h>

#include "src/error.hpp"
#include "src/json.hpp"

namespace qps::report {

namespace {

Json to_json(const DirectionStats& d)
{
    return {{"messages", d.messages},
            {"bytes", d.bytes},
            {"seconds", d.seconds},
            {"bytes_per_s", d.bytes_per_s},
            {"peak_bytes_per_s", d.peak_bytes_per_s},
            {"min_bytes_per_s", d.min_bytes_per_s},
            {"windows", d.windows},
            {"messages_per_s", d.messages_per_s},
            {"overlap_seconds", d.overlap_seconds}};
}

std::optional<DirectionStats> direction_from_json(const Json& j)
{
    if (j.is_null())
        return std::nullopt;
    DirectionStats d;
    d.messages = j.at("messages").get<std::uint64_t>();
    d.bytes = j.at("bytes").get<std::uint64_t>();
    d.seconds = j.at("seconds").get<double>();
    d.bytes_per_s = j.at("bytes_per_s").get<double>();
    d.peak_bytes_per_s = j.at("peak_bytes_per_s").get<double>();
    d.min_bytes_per_s = j.at("min_bytes_per_s").get<double>();
    d.windows = j.at("windows").get<std::uint64_t>();
    d.messages_per_s = j.at("messages_per_s").get<double>();
    d.overlap_seconds = j.value("overlap_seconds", 0.0);
    return d;
}

Json to_json(const ThreadStats& t)
{
    Json j{{"index", t.index},
               {"cpu", t.cpu},
               {"tx", t.tx ? to_json(*t.tx) : Json(nullptr)},
               {"rx", t.rx ? to_json(*t.rx) : Json(nullptr)},
               {"cpu_user_s", t.cpu_user_s},
               {"cpu_sys_s", t.cpu_sys_s},
               {"cpu_wall_s", t.cpu_wall_s},
               {"cpu_percent", t.cpu_percent},
               {"aborted", t.aborted}};
    if (t.aborted)
        j["abort_reason"] = t.abort_reason;
    return j;
}

ThreadStats thread_from_json(const Json& j)
{
    ThreadStats t;
    t.index = j.at("index").get<std::uint32_t>();
    t.cpu = j.at("cpu").get<int>();
    t.tx = direction_from_json(j.at("tx"));
    t.rx = direction_from_json(j.at("rx"));
    t.cpu_user_s = j.at("cpu_user_s").get<double>();
    t.cpu_sys_s = j.at("cpu_sys_s").get<double>();
    t.cpu_wall_s = j.at("cpu_wall_s").get<double>();
    t.cpu_percent = j.at("cpu_percent").get<double>();
    t.aborted = j.at("aborted").get<bool>();
    t.abort_reason = j.value("abort_reason", "");
    return t;
}

}  // namespace

Json to_json(const SideStats& s)
{
    Json j{{"size", s.size},
               {"tx", s.tx ? to_json(*s.tx) : Json(nullptr)},
               {"rx", s.rx ? to_json(*s.rx) : Json(nullptr)},
               {"cpu_user_s", s.cpu_user_s},
               {"cpu_sys_s", s.cpu_sys_s},
               {"cpu_wall_s", s.cpu_wall_s},
               {"cpu_percent", s.cpu_percent},
               {"verified", s.verified},
               {"verify_failed", s.verify_failed},
               {"aborted", s.aborted}};
    if (s.aborted)
        j["abort_reason"] = s.abort_reason;
    if (s.atomic_counter)
        j["atomic_counter"] = *s.atomic_counter;
    if (s.srq)
        j["srq"] = Json{{"depth", s.srq->depth}, {"qps", s.srq->qps}, {"served", s.srq->served}};
    if (!s.threads.empty()) {
        Json threads = Json::array();
        for (const auto& t : s.threads)
            threads.push_back(to_json(t));
        j["threads"] = std::move(threads);
    }
    return j;
}

SideStats side_stats_from_json(const Json& j)
{
    try {
        SideStats s;
        s.size = j.at("size").get<std::uint32_t>();
        s.tx = direction_from_json(j.at("tx"));
        s.rx = direction_from_json(j.at("rx"));
        s.cpu_user_s = j.at("cpu_user_s").get<double>();
        s.cpu_sys_s = j.at("cpu_sys_s").get<double>();
        s.cpu_wall_s = j.at("cpu_wall_s").get<double>();
        s.cpu_percent = j.at("cpu_percent").get<double>();
        s.verified = j.at("verified").get<std::string>();
        s.verify_failed = j.at("verify_failed").get<bool>();
        s.aborted = j.at("aborted").get<bool>();
        s.abort_reason = j.value("abort_reason", "");
        if (j.contains("atomic_counter"))
            s.atomic_counter = j.at("atomic_counter").get<std::uint64_t>();
        if (j.contains("srq"))
            s.srq = SrqUse{j.at("srq").at("depth").get<std::uint32_t>(), j.at("srq").at("qps").get<std::uint32_t>(),
                           j.at("srq").at("served").get<std::uint32_t>()};
        if (j.contains("threads"))
            for (const auto& t : j.at("threads"))
                s.threads.push_back(thread_from_json(t));
        return s;
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("the peer's results are malformed: {}", e.what()));
    }
}

const std::vector<RateUnit>& rate_units()
{
    static const std::vector<RateUnit> units{
        {"Gb/s", 1e9 / 8},       {"GB/s", 1e9},       {"GiB/s", 1024.0 * 1024 * 1024},
        {"Mb/s", 1e6 / 8},       {"MB/s", 1e6},       {"MiB/s", 1024.0 * 1024},
    };
    return units;
}

const RateUnit& rate_unit(std::string_view name)
{
    std::string valid;
    for (const auto& u : rate_units()) {
        if (u.name == name)
            return u;
        valid += fmt::format("{}{}", valid.empty() ? "" : ", ", u.name);
    }
    throw UsageError(fmt::format("--unit '{}' is not a unit: valid are {}", name, valid));
}

}  // namespace qps::report
