#include "src/mesh/analysis.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>

#include "src/error.hpp"
#include "src/util/text.hpp"

namespace qps::mesh {

using util::trim;

namespace {

struct UnitScale {
    std::string_view name;
    double factor;  // to Gb/s or to microseconds
};
constexpr UnitScale bw_units[] = {{"Gb/s", 1}, {"Mb/s", 1e-3}, {"GB/s", 8}, {"MB/s", 8e-3}};
constexpr UnitScale lat_units[] = {{"us", 1}, {"ns", 1e-3}, {"ms", 1e3}};

[[noreturn]] void bad_term(std::string_view term)
{
    throw UsageError(fmt::format("--expect {}: expected bw>=NUMBER{{Gb/s|Mb/s|GB/s|MB/s}} or "
                                 "lat<=NUMBER{{us|ns|ms}}, several joined by commas (e.g. bw>=90Gb/s,lat<=3us)",
                                 term));
}

Expectation parse_term(std::string_view term)
{
    Expectation e;
    e.text = std::string(term);
    std::string_view rest;
    const UnitScale* units = nullptr;
    std::size_t unit_count = 0;
    if (term.substr(0, 4) == "bw>=") {
        e.metric = Metric::bw;
        rest = term.substr(4);
        units = bw_units;
        unit_count = std::size(bw_units);
    } else if (term.substr(0, 5) == "lat<=") {
        e.metric = Metric::lat;
        rest = term.substr(5);
        units = lat_units;
        unit_count = std::size(lat_units);
    } else {
        bad_term(term);
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (ec != std::errc{} || !(value > 0))
        bad_term(term);
    const std::string_view unit(end, static_cast<std::size_t>(rest.data() + rest.size() - end));
    for (std::size_t i = 0; i < unit_count; ++i)
        if (units[i].name == unit) {
            e.limit = value * units[i].factor;
            return e;
        }
    bad_term(term);
}

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool worse(const Sample& x, const Sample& y)
{
    return x.metric == Metric::bw ? x.value < y.value : x.value > y.value;
}

}  // namespace

std::vector<Expectation> parse_expect(std::string_view text)
{
    std::vector<Expectation> all;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view term = trim(text.substr(0, comma));
        if (term.empty())
            bad_term(text);
        all.push_back(parse_term(term));
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    return all;
}

std::vector<Sample> samples(const MeshReport& r)
{
    std::vector<Sample> out;
    for (std::size_t i = 0; i < r.results.size(); ++i) {
        const PairResult& p = r.results[i];
        if (p.status != PairStatus::ok)
            continue;
        if (p.bw_ab)
            out.push_back({i, Metric::bw, p.pair.a, p.pair.b, p.bw_ab->gbps});
        if (p.bw_ba)
            out.push_back({i, Metric::bw, p.pair.b, p.pair.a, p.bw_ba->gbps});
        if (p.lat_a)
            out.push_back({i, Metric::lat, p.pair.a, p.pair.b, p.lat_a->p50_us});
    }
    return out;
}

namespace {

// The samples off the median by more than the threshold, or missing an
// expectation, worst first (relative distance from the median); their
// pairs are marked in `bad_result`.
void find_outliers(Analysis& a, const std::vector<Sample>& all, double threshold,
                   const std::vector<Expectation>& expect, std::vector<bool>& bad_result)
{
    for (const auto& s : all) {
        std::string why;
        double median = 0;
        if (s.metric == Metric::bw) {
            median = *a.median_gbps;
            if (s.value < threshold * median)
                why = fmt::format("below {:.2f} x the median {:.2f} Gb/s", threshold, median);
        } else {
            median = *a.median_lat_us;
            if (s.value > median / threshold)
                why = fmt::format("above the median {:.2f} us / {:.2f}", median, threshold);
        }
        for (const auto& e : expect)
            if (e.metric == s.metric && (s.metric == Metric::bw ? s.value < e.limit : s.value > e.limit)) {
                why = why.empty() ? fmt::format("misses {}", e.text) : fmt::format("{}; misses {}", why, e.text);
                ++a.missed_expectations;
            }
        if (!why.empty()) {
            a.outliers.push_back({s, median, why});
            bad_result[s.result] = true;
        }
    }
    std::stable_sort(a.outliers.begin(), a.outliers.end(), [](const Outlier& x, const Outlier& y) {
        // Relative distance from the median: the furthest first, bandwidth and latency alike.
        const auto off = [](const Outlier& o) {
            if (o.median <= 0)
                return 0.0;
            return o.sample.metric == Metric::bw ? 1 - o.sample.value / o.median : 1 - o.median / o.sample.value;
        };
        return off(x) > off(y);
    });
}

// Ranks with at least two bad pairs (failed or outliers), half of those
// they were in or more; the most affected first.
void find_slow_nodes(Analysis& a, const MeshReport& r, const std::vector<bool>& bad_result)
{
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> per_rank;  // rank -> (bad, tested)
    for (std::size_t i = 0; i < r.results.size(); ++i) {
        const PairResult& p = r.results[i];
        if (p.status == PairStatus::not_run)
            continue;
        for (std::uint32_t rank : {p.pair.a, p.pair.b}) {
            auto& [bad, tested] = per_rank[rank];
            ++tested;
            bad += bad_result[i] ? 1 : 0;
        }
    }
    for (const auto& [rank, counts] : per_rank)
        if (counts.first >= 2 && 2 * counts.first >= counts.second)
            a.slow_nodes.push_back({rank, counts.first, counts.second});
    std::stable_sort(a.slow_nodes.begin(), a.slow_nodes.end(), [](const SlowNode& x, const SlowNode& y) {
        return x.bad * y.tested > y.bad * x.tested;
    });
}

}  // namespace

Analysis analyse(const MeshReport& r, double threshold, const std::vector<Expectation>& expect, std::size_t worst)
{
    Analysis a;
    const std::vector<Sample> all = samples(r);
    std::vector<double> bw, lat;
    for (const auto& s : all)
        (s.metric == Metric::bw ? bw : lat).push_back(s.value);
    if (!bw.empty())
        a.median_gbps = median_of(bw);
    if (!lat.empty())
        a.median_lat_us = median_of(lat);

    // The bad pairs: those that failed, then those that outlie; per rank,
    // how many of its pairs were bad.
    std::vector<bool> bad_result(r.results.size(), false);
    for (std::size_t i = 0; i < r.results.size(); ++i) {
        const PairResult& p = r.results[i];
        if (p.status == PairStatus::failed)
            ++a.failed, bad_result[i] = true;
        else if (p.status == PairStatus::not_run)
            ++a.not_run;
    }
    find_outliers(a, all, threshold, expect, bad_result);
    find_slow_nodes(a, r, bad_result);

    for (const auto& s : all)
        (s.metric == Metric::bw ? a.worst_bw : a.worst_lat).push_back(s);
    for (auto* v : {&a.worst_bw, &a.worst_lat}) {
        std::stable_sort(v->begin(), v->end(), worse);
        if (v->size() > worst)
            v->resize(worst);
    }
    return a;
}

}  // namespace qps::mesh
