#include "formatters/mesh.hpp"

#include <fmt/format.h>

#include "formatters/json_value.hpp"
#include "src/json.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

std::string who(const mesh::MeshReport& r, std::uint32_t rank)
{
    if (rank < r.ranks.size())
        return fmt::format("{} ({})", rank, r.ranks[rank].host);
    return std::to_string(rank);
}

Json sample_json(const mesh::Sample& s)
{
    return {{"metric", s.metric == mesh::Metric::bw ? "bw" : "lat"},
            {"from", s.from},
            {"to", s.to},
            {"value", s.value},
            {"unit", s.metric == mesh::Metric::bw ? "Gb/s" : "us"}};
}

std::string sample_text(const mesh::MeshReport& r, const mesh::Sample& s)
{
    if (s.metric == mesh::Metric::bw)
        return fmt::format("{:>10.2f} Gb/s  {} -> {}", s.value, who(r, s.from), who(r, s.to));
    return fmt::format("{:>10.2f} us    {} <-> {}", s.value, who(r, s.from), who(r, s.to));
}

}  // namespace

Json mesh_json(const mesh::MeshReport& r, const mesh::Analysis& a, const mesh::MeshOptions& o)
{
    Json j;
    j["schema_version"] = schema_version;
    j["command"] = "qpscope-mesh";
    j["tests"] = to_json(r.tests);
    j["pairs_plan"] = mesh::pairs_name(r.pairs);
    j["seed"] = r.pairs.seed;
    j["threshold"] = o.threshold;
    j["expect"] = o.expect_text.empty() ? Json(nullptr) : Json(o.expect_text);
    j["ranks"] = Json::array();
    for (const auto& rank : r.ranks)
        j["ranks"].push_back(to_json(rank));
    Json rounds = Json::array();
    for (const auto& round : r.schedule.rounds) {
        Json pairs = Json::array();
        for (const auto& p : round)
            pairs.push_back(Json::array({p.a, p.b}));
        rounds.push_back(pairs);
    }
    j["schedule"] = rounds;
    j["results"] = Json::array();
    for (const auto& p : r.results)
        j["results"].push_back(to_json(p));
    j["timings"] = Json::array();
    for (const auto& t : r.timings)
        j["timings"].push_back({{"wall_s", t.wall_s}, {"test_s", t.test_s}, {"coordination_s", t.coordination_s()}});
    j["rounds_done"] = r.rounds_done;
    j["complete"] = r.complete;
    j["stopped"] = r.stopped.empty() ? Json(nullptr) : Json(r.stopped);
    Json an;
    an["median_gbps"] = a.median_gbps ? Json(*a.median_gbps) : Json(nullptr);
    an["median_lat_us"] = a.median_lat_us ? Json(*a.median_lat_us) : Json(nullptr);
    an["failed"] = a.failed;
    an["not_run"] = a.not_run;
    an["missed_expectations"] = a.missed_expectations;
    an["outliers"] = Json::array();
    for (const auto& out : a.outliers) {
        Json x = sample_json(out.sample);
        x["median"] = out.median;
        x["why"] = out.why;
        an["outliers"].push_back(x);
    }
    an["slow_nodes"] = Json::array();
    for (const auto& s : a.slow_nodes)
        an["slow_nodes"].push_back({{"rank", s.rank}, {"bad", s.bad}, {"tested", s.tested}});
    an["worst_bw"] = Json::array();
    for (const auto& s : a.worst_bw)
        an["worst_bw"].push_back(sample_json(s));
    an["worst_lat"] = Json::array();
    for (const auto& s : a.worst_lat)
        an["worst_lat"].push_back(sample_json(s));
    j["analysis"] = an;
    j["healthy"] = a.healthy() && r.stopped.empty();
    return j;
}

std::string mesh_text(const mesh::MeshReport& r, const mesh::Analysis& a, const mesh::MeshOptions& o)
{
    std::string out;
    auto line = [&out](const std::string& s) {
        out += util::escape_text(s);  // hostnames and causes are bytes from outside
        out += '\n';
    };
    std::size_t ok = 0;
    for (const auto& p : r.results)
        ok += p.status == mesh::PairStatus::ok;
    line(fmt::format("qpscope-mesh: {} ranks, pairs {}, {} pairs in {} rounds ({} run)", r.ranks.size(),
                     mesh::pairs_name(r.pairs), r.results.size(), r.schedule.rounds.size(), r.rounds_done));
    line(fmt::format("  ok {}  failed {}  not run {}", ok, a.failed, a.not_run));
    if (a.median_gbps)
        line(fmt::format("  median bandwidth {:.2f} Gb/s ({} B writes)", *a.median_gbps, r.tests.bw_size));
    if (a.median_lat_us)
        line(fmt::format("  median latency   {:.2f} us (p50 one-way, {} B sends)", *a.median_lat_us, r.tests.lat_size));
    double coordination = 0, wall = 0;
    for (const auto& t : r.timings) {
        coordination += t.coordination_s();
        wall += t.wall_s;
    }
    if (!r.timings.empty())
        line(fmt::format("  rounds {:.2f} s, of which coordination {:.3f} s ({:.1f} %)", wall, coordination,
                         wall > 0 ? 100 * coordination / wall : 0));
    for (const auto& rank : r.ranks)
        if (!rank.setup_error.empty())
            line(fmt::format("  rank {}: set-up failed: {}", who(r, rank.rank), rank.setup_error));
    if (!r.stopped.empty())
        line(fmt::format("  STOPPED after {} of {} rounds: {}", r.rounds_done, r.schedule.rounds.size(), r.stopped));
    if (a.failed) {
        line("failed pairs:");
        for (const auto& p : r.results)
            if (p.status == mesh::PairStatus::failed)
                line(fmt::format("  {} <-> {} (round {}): {}", who(r, p.pair.a), who(r, p.pair.b), p.round + 1,
                                 p.cause));
    }
    if (!a.worst_bw.empty()) {
        line("worst bandwidth:");
        for (const auto& s : a.worst_bw)
            line("  " + sample_text(r, s));
    }
    if (!a.worst_lat.empty()) {
        line("worst latency:");
        for (const auto& s : a.worst_lat)
            line("  " + sample_text(r, s));
    }
    if (!a.outliers.empty()) {
        line(fmt::format("outliers (threshold {:.2f}{}):", o.threshold,
                         o.expect_text.empty() ? "" : ", expect " + o.expect_text));
        for (const auto& x : a.outliers)
            line(fmt::format("  {}  {}", sample_text(r, x.sample), x.why));
    }
    if (!a.slow_nodes.empty()) {
        line("consistently slow or failing ranks:");
        for (const auto& s : a.slow_nodes)
            line(fmt::format("  rank {}: {} of its {} pairs failed or outlying", who(r, s.rank), s.bad, s.tested));
    }
    line(a.healthy() && r.stopped.empty() ? "verdict: healthy" : "verdict: NOT healthy");
    return out;
}

}  // namespace qps::formatters
