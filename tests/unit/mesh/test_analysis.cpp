#include <doctest/doctest.h>

#include "src/error.hpp"
#include "src/mesh/analysis.hpp"
#include "unit/mesh/sample_mesh.hpp"

using namespace qps::mesh;
using qps::Json;

namespace {

// n ranks, all pairs ok at `gbps` both ways and `us` latency.
MeshReport uniform_report(std::uint32_t n, double gbps, double us)
{
    return qps::test::all_pairs_ok(n, [&](PairResult& pr) {
        pr.lat_a = LatencyFigures{1000, us, us * 2, us * 3, us};
        pr.bw_ab = BandwidthFigures{2000, 2000 * 65536, 1, gbps, gbps, gbps};
        pr.bw_ba = pr.bw_ab;
    });
}

PairResult& pair_between(MeshReport& r, std::uint32_t a, std::uint32_t b)
{
    for (auto& p : r.results)
        if (p.pair.a == a && p.pair.b == b)
            return p;
    throw std::logic_error("no such pair");
}

}  // namespace

TEST_CASE("--expect: terms, units, and one-line errors")
{
    const auto e = parse_expect("bw>=90Gb/s, lat<=3us,bw>=10GB/s,lat<=1500ns");
    REQUIRE(e.size() == 4);
    CHECK(e[0].metric == Metric::bw);
    CHECK(e[0].limit == 90);
    CHECK(e[1].metric == Metric::lat);
    CHECK(e[1].limit == 3);
    CHECK(e[2].limit == 80);
    CHECK(e[3].limit == doctest::Approx(1.5));
    CHECK(parse_expect("").empty());
    for (const char* bad : {"bw>90Gb/s", "bw>=90", "lat<=3s", "lat<=-1us", "x", "bw>=90Gb/s,,lat<=3us"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(parse_expect(bad), qps::UsageError);
    }
    try {
        parse_expect("bw>=fast");
    } catch (const qps::UsageError& err) {
        CHECK(std::string(err.what()).find("--expect bw>=fast:") == 0);
    }
}

TEST_CASE("a healthy uniform mesh has no outliers and its medians are the values")
{
    const MeshReport r = uniform_report(6, 97.5, 1.8);
    const Analysis a = analyse(r, 0.8, {});
    CHECK(a.healthy());
    CHECK(a.outliers.empty());
    CHECK(a.slow_nodes.empty());
    CHECK(*a.median_gbps == doctest::Approx(97.5));
    CHECK(*a.median_lat_us == doctest::Approx(1.8));
    CHECK(a.worst_bw.size() == 10);   // 30 directions, the worst ten
    CHECK(a.worst_lat.size() == 10);  // 15 pairs
    CHECK(samples(r).size() == 15 * 3);
}

TEST_CASE("a slow node: its directions are outliers, and it is named as consistently slow")
{
    MeshReport r = uniform_report(6, 100, 2);
    for (auto& p : r.results)
        if (p.pair.a == 4 || p.pair.b == 4) {
            // rank 4 sends and receives at a third of the rate
            p.bw_ab->gbps = 33;
            p.bw_ba->gbps = 33;
        }
    pair_between(r, 0, 1).lat_a->p50_us = 9;  // one slow latency
    const Analysis a = analyse(r, 0.8, {});
    CHECK(a.healthy());  // outliers alone do not fail a run without --expect
    REQUIRE(a.slow_nodes.size() == 1);
    CHECK(a.slow_nodes[0].rank == 4);
    CHECK(a.slow_nodes[0].bad == 5);
    CHECK(a.slow_nodes[0].tested == 5);
    CHECK(a.outliers.size() == 11);  // 10 directions through rank 4, 1 latency
    CHECK(a.outliers[0].sample.metric == Metric::lat);  // 9 us against a 2 us median: the furthest off
    CHECK(a.outliers[0].why.find("above the median 2.00 us") == 0);
    CHECK(a.worst_bw.front().value == 33);
}

TEST_CASE("--expect misses and failed pairs make the run unhealthy")
{
    MeshReport r = uniform_report(4, 50, 2);
    Analysis a = analyse(r, 0.8, parse_expect("bw>=90Gb/s"));
    CHECK_FALSE(a.healthy());
    CHECK(a.missed_expectations == 12);
    CHECK(a.outliers.front().why == "misses bw>=90Gb/s");
    a = analyse(r, 0.8, parse_expect("bw>=40Gb/s,lat<=3us"));
    CHECK(a.healthy());

    PairResult& broken = pair_between(r, 1, 2);
    broken.status = PairStatus::failed;
    broken.cause = "rank 2 (node2) could not set up: GID index 5 is empty";
    a = analyse(r, 0.8, {});
    CHECK(a.failed == 1);
    CHECK_FALSE(a.healthy());
    CHECK(samples(r).size() == 5 * 3);  // a failed pair's figures are not samples
}

TEST_CASE("records travel as JSON and the two sides merge")
{
    PairResult a_side;
    a_side.pair = {1, 3};
    a_side.round = 2;
    a_side.status = PairStatus::ok;
    a_side.lat_a = LatencyFigures{1000, 2.5, 3, 10, 2.6};
    a_side.bw_ab = BandwidthFigures{2000, 131072000, 0.5, 2.1, 2.5, 1.9};
    a_side.verified_ba = "ok";
    const PairResult back = pair_result_from_json(Json::parse(to_json(a_side).dump()));
    CHECK(back.pair == a_side.pair);
    CHECK(back.round == 2);
    CHECK(back.lat_a->p50_us == 2.5);
    CHECK(back.bw_ab->peak_gbps == 2.5);
    CHECK_FALSE(back.bw_ba.has_value());

    PairResult b_side;
    b_side.pair = {1, 3};
    b_side.status = PairStatus::failed;
    b_side.cause = "rank 3 (n3): bandwidth b->a: no completion within the timeout: the peer is silent";
    b_side.lat_b = LatencyFigures{1000, 2.4, 3, 9, 2.5};
    b_side.verified_ab = "ok";
    PairResult merged = back;
    merge_sides(merged, b_side);
    CHECK(merged.status == PairStatus::failed);
    CHECK(merged.cause == b_side.cause);
    CHECK(merged.lat_b->p50_us == 2.4);
    CHECK(merged.verified_ab == "ok");
    CHECK(merged.verified_ba == "ok");

    CHECK_THROWS_AS(pair_result_from_json(Json::parse(R"({"a":1})")), qps::OperationError);
    Json wrong = to_json(a_side);
    wrong["status"] = "fine";
    CHECK_THROWS_AS(pair_result_from_json(wrong), qps::OperationError);
    RankInfo ri{7, "node7", "rxe0", 1, "::ffff:192.0.2.1", 1, 10, "GID index 5 of rxe0 port 1 is empty", "192.0.2.1"};
    const RankInfo ri2 = rank_info_from_json(to_json(ri));
    CHECK(ri2.setup_error == ri.setup_error);
    CHECK(ri2.cm_address == "192.0.2.1");
    CHECK(ri2.gid == ri.gid);
    TestSpec t;
    t.duration_s = 2.5;
    CHECK(test_spec_from_json(to_json(t)).duration_s == 2.5);
    CHECK_FALSE(test_spec_from_json(to_json(t)).cm);
    // rdma_cm and the knobs travel from rank 0 to every rank
    t.cm = true;
    t.knobs.traffic_class = 104;
    t.knobs.sl = 3;
    t.knobs.min_rnr_timer = 1;
    t.knobs.flow_label = 0xfffff;
    const TestSpec spec_back = test_spec_from_json(to_json(t));
    CHECK(spec_back.cm);
    CHECK(spec_back.knobs.traffic_class == 104);
    CHECK(spec_back.knobs.sl == 3);
    CHECK(spec_back.knobs.min_rnr_timer == 1);
    CHECK(spec_back.knobs.flow_label == 0xfffff);
    CHECK(spec_back.knobs.ack_timeout == 14);
    Json missing = to_json(t);
    missing.erase("knobs");
    CHECK_THROWS_AS(test_spec_from_json(missing), qps::OperationError);
}
