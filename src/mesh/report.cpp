#include "src/mesh/report.hpp"

#include <fmt/format.h>

#include "src/error.hpp"

namespace qps::mesh {

std::string_view status_name(PairStatus s)
{
    switch (s) {
    case PairStatus::ok:
        return "ok";
    case PairStatus::failed:
        return "failed";
    case PairStatus::not_run:
        return "not run";
    }
    return "not run";
}

namespace {

PairStatus status_from(std::string_view name)
{
    for (PairStatus s : {PairStatus::ok, PairStatus::failed, PairStatus::not_run})
        if (status_name(s) == name)
            return s;
    throw OperationError(fmt::format("mesh record: status '{}' is not ok, failed or not run", name));
}

Json to_json(const LatencyFigures& l)
{
    return {{"samples", l.samples}, {"p50_us", l.p50_us}, {"p99_us", l.p99_us}, {"max_us", l.max_us},
            {"mean_us", l.mean_us}};
}

LatencyFigures latency_from(const Json& j)
{
    LatencyFigures l;
    l.samples = j.at("samples").get<std::uint64_t>();
    l.p50_us = j.at("p50_us").get<double>();
    l.p99_us = j.at("p99_us").get<double>();
    l.max_us = j.at("max_us").get<double>();
    l.mean_us = j.at("mean_us").get<double>();
    return l;
}

Json to_json(const BandwidthFigures& b)
{
    return {{"messages", b.messages}, {"bytes", b.bytes},         {"seconds", b.seconds},
            {"gbps", b.gbps},         {"peak_gbps", b.peak_gbps}, {"min_gbps", b.min_gbps}};
}

BandwidthFigures bandwidth_from(const Json& j)
{
    BandwidthFigures b;
    b.messages = j.at("messages").get<std::uint64_t>();
    b.bytes = j.at("bytes").get<std::uint64_t>();
    b.seconds = j.at("seconds").get<double>();
    b.gbps = j.at("gbps").get<double>();
    b.peak_gbps = j.at("peak_gbps").get<double>();
    b.min_gbps = j.at("min_gbps").get<double>();
    return b;
}


// nlohmann's own exceptions (missing member, wrong type) become the one
// error a malformed record gives.
template <class F>
auto parsed(const char* what, F&& f)
{
    try {
        return f();
    } catch (const nlohmann::json::exception& e) {
        throw OperationError(fmt::format("mesh record: malformed {}: {}", what, e.what()));
    }
}

}  // namespace

Json to_json(const TestSpec& t)
{
    return {{"lat", t.lat},
            {"bw", t.bw},
            {"lat_size", t.lat_size},
            {"bw_size", t.bw_size},
            {"lat_iterations", t.lat_iterations},
            {"bw_iterations", t.bw_iterations},
            {"duration_s", t.duration_s ? Json(*t.duration_s) : Json(nullptr)},
            {"warmup", t.warmup},
            {"timeout_s", t.timeout_s},
            {"connection", t.cm ? "rdma_cm" : "manual"},
            {"knobs",
             {{"traffic_class", t.knobs.traffic_class},
              {"sl", t.knobs.sl},
              {"flow_label", t.knobs.flow_label},
              {"pkey_index", t.knobs.pkey_index},
              {"ack_timeout", t.knobs.ack_timeout},
              {"retry_cnt", t.knobs.retry_cnt},
              {"rnr_retry", t.knobs.rnr_retry},
              {"min_rnr_timer", t.knobs.min_rnr_timer}}}};
}

double pair_seconds(const TestSpec& t, double gbps, double one_way_us, double setup_s)
{
    double s = setup_s;
    if (t.lat)
        s += static_cast<double>(t.warmup + t.lat_iterations) * 2 * one_way_us * 1e-6;
    if (t.bw) {
        const double per_direction = t.duration_s ? *t.duration_s
                                                  : static_cast<double>(t.bw_iterations) * t.bw_size * 8 / (gbps * 1e9);
        s += 2 * (per_direction + static_cast<double>(t.warmup) * t.bw_size * 8 / (gbps * 1e9));
    }
    return s;
}

TestSpec test_spec_from_json(const Json& j)
{
    return parsed("test parameters", [&] {
        TestSpec t;
        t.lat = j.at("lat").get<bool>();
        t.bw = j.at("bw").get<bool>();
        t.lat_size = j.at("lat_size").get<std::uint32_t>();
        t.bw_size = j.at("bw_size").get<std::uint32_t>();
        t.lat_iterations = j.at("lat_iterations").get<std::uint64_t>();
        t.bw_iterations = j.at("bw_iterations").get<std::uint64_t>();
        if (!j.at("duration_s").is_null())
            t.duration_s = j.at("duration_s").get<double>();
        t.warmup = j.at("warmup").get<std::uint64_t>();
        t.timeout_s = j.at("timeout_s").get<double>();
        t.cm = j.at("connection").get<std::string>() == "rdma_cm";
        const Json& k = j.at("knobs");
        t.knobs.traffic_class = k.at("traffic_class").get<std::uint8_t>();
        t.knobs.sl = k.at("sl").get<std::uint8_t>();
        t.knobs.flow_label = k.at("flow_label").get<std::uint32_t>();
        t.knobs.pkey_index = k.at("pkey_index").get<std::uint16_t>();
        t.knobs.ack_timeout = k.at("ack_timeout").get<std::uint8_t>();
        t.knobs.retry_cnt = k.at("retry_cnt").get<std::uint8_t>();
        t.knobs.rnr_retry = k.at("rnr_retry").get<std::uint8_t>();
        t.knobs.min_rnr_timer = k.at("min_rnr_timer").get<std::uint8_t>();
        return t;
    });
}

Json to_json(const RankInfo& r)
{
    return {{"rank", r.rank},           {"host", r.host},
            {"device", r.device},       {"port", r.port},
            {"gid", r.gid},             {"gid_index", r.gid_index},
            {"rate_gbps", r.rate_gbps}, {"setup_error", r.setup_error.empty() ? Json(nullptr) : Json(r.setup_error)},
            {"cm_address", r.cm_address.empty() ? Json(nullptr) : Json(r.cm_address)}};
}

RankInfo rank_info_from_json(const Json& j)
{
    return parsed("rank", [&] {
        RankInfo r;
        r.rank = j.at("rank").get<std::uint32_t>();
        r.host = j.at("host").get<std::string>();
        r.device = j.at("device").get<std::string>();
        r.port = j.at("port").get<std::uint32_t>();
        r.gid = j.at("gid").get<std::string>();
        r.gid_index = j.at("gid_index").get<std::uint32_t>();
        r.rate_gbps = j.at("rate_gbps").get<double>();
        if (!j.at("setup_error").is_null())
            r.setup_error = j.at("setup_error").get<std::string>();
        if (!j.at("cm_address").is_null())
            r.cm_address = j.at("cm_address").get<std::string>();
        return r;
    });
}

Json to_json(const PairResult& p)
{
    Json j{{"a", p.pair.a},
           {"b", p.pair.b},
           {"round", p.round},
           {"status", status_name(p.status)},
           {"cause", p.cause.empty() ? Json(nullptr) : Json(p.cause)},
           {"seconds", p.seconds}};
    j["lat_a"] = p.lat_a ? to_json(*p.lat_a) : Json(nullptr);
    j["lat_b"] = p.lat_b ? to_json(*p.lat_b) : Json(nullptr);
    j["bw_ab"] = p.bw_ab ? to_json(*p.bw_ab) : Json(nullptr);
    j["bw_ba"] = p.bw_ba ? to_json(*p.bw_ba) : Json(nullptr);
    j["verified_ab"] = p.verified_ab.empty() ? Json(nullptr) : Json(p.verified_ab);
    j["verified_ba"] = p.verified_ba.empty() ? Json(nullptr) : Json(p.verified_ba);
    return j;
}

PairResult pair_result_from_json(const Json& j)
{
    return parsed("pair result", [&] {
        PairResult p;
        p.pair = {j.at("a").get<std::uint32_t>(), j.at("b").get<std::uint32_t>()};
        p.round = j.at("round").get<std::uint32_t>();
        p.status = status_from(j.at("status").get<std::string>());
        if (!j.at("cause").is_null())
            p.cause = j.at("cause").get<std::string>();
        p.seconds = j.at("seconds").get<double>();
        if (!j.at("lat_a").is_null())
            p.lat_a = latency_from(j.at("lat_a"));
        if (!j.at("lat_b").is_null())
            p.lat_b = latency_from(j.at("lat_b"));
        if (!j.at("bw_ab").is_null())
            p.bw_ab = bandwidth_from(j.at("bw_ab"));
        if (!j.at("bw_ba").is_null())
            p.bw_ba = bandwidth_from(j.at("bw_ba"));
        if (!j.at("verified_ab").is_null())
            p.verified_ab = j.at("verified_ab").get<std::string>();
        if (!j.at("verified_ba").is_null())
            p.verified_ba = j.at("verified_ba").get<std::string>();
        return p;
    });
}

void merge_sides(PairResult& base, const PairResult& other)
{
    if (!base.lat_a)
        base.lat_a = other.lat_a;
    if (!base.lat_b)
        base.lat_b = other.lat_b;
    if (!base.bw_ab)
        base.bw_ab = other.bw_ab;
    if (!base.bw_ba)
        base.bw_ba = other.bw_ba;
    // The receiver of a direction knows whether its data arrived intact.
    if (base.verified_ab.empty())
        base.verified_ab = other.verified_ab;
    if (base.verified_ba.empty())
        base.verified_ba = other.verified_ba;
    if (other.status == PairStatus::failed && base.status != PairStatus::failed) {
        base.status = PairStatus::failed;
        base.cause = other.cause;
    } else if (other.status == PairStatus::failed && other.cause != base.cause && !other.cause.empty()) {
        base.cause = base.cause.empty() ? other.cause : base.cause + "; " + other.cause;
    }
    base.seconds = std::max(base.seconds, other.seconds);
}

}  // namespace qps::mesh
