#include <doctest/doctest.h>

#include "formatters/mesh_svg.hpp"
#include "unit/mesh/sample_mesh.hpp"

using namespace qps::mesh;

namespace {

std::size_t count_of(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

// n ranks, every pair ok at 10 + a + b Gb/s one way and 20 + a + b the other.
MeshReport heat_report(std::uint32_t n)
{
    return qps::test::all_pairs_ok(n, [](PairResult& pr) {
        pr.bw_ab = BandwidthFigures{1, 1, 1, 10.0 + pr.pair.a + pr.pair.b, 0, 0};
        pr.bw_ba = BandwidthFigures{1, 1, 1, 20.0 + pr.pair.a + pr.pair.b, 0, 0};
        pr.lat_a = LatencyFigures{1, 2.0 + pr.pair.a, 3, 4, 2};
    });
}

}  // namespace

TEST_CASE("heat map: an N x N grid, failed pairs marked with their cause escaped, deterministic")
{
    MeshReport r = heat_report(4);
    r.results[1].status = PairStatus::failed;
    r.results[1].cause = "rank 2 <node2> & \"friends\": GID index 5 is empty";
    r.results[2].status = PairStatus::not_run;
    const std::string svg = qps::formatters::mesh_svg(r, Metric::bw);
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(count_of(svg, "class=\"cell\"") == 16);
    CHECK(count_of(svg, "fill=\"#e0e0e0\" stroke=\"#c0c0c0\"") == 4);     // the diagonal
    CHECK(count_of(svg, "fill=\"#303030\" stroke=\"#c0c0c0\"") == 2);     // the failed pair, both cells
    CHECK(count_of(svg, "fill=\"#a0a0a0\" stroke=\"#c0c0c0\"") == 2);     // the pair not run
    CHECK(svg.find("rank 2 &lt;node2&gt; &amp; &quot;friends&quot;") != std::string::npos);
    CHECK(svg.find("<node2>") == std::string::npos);
    CHECK(svg.find("qpscope-mesh: bandwidth, Gb/s") != std::string::npos);
    CHECK(count_of(svg, "class=\"row-label\"") == 4);
    CHECK(svg.find("r3 node3") != std::string::npos);
    CHECK(svg == qps::formatters::mesh_svg(r, Metric::bw));
    // Bandwidth: the best direction is green, the worst red.
    CHECK(svg.find("fill=\"#20df20\"") != std::string::npos);
    CHECK(svg.find("fill=\"#df2020\"") != std::string::npos);
}

TEST_CASE("heat map of latency: 3 ranks, symmetric cells, the title says latency")
{
    const MeshReport r = heat_report(3);
    const std::string svg = qps::formatters::mesh_svg(r, Metric::lat);
    CHECK(count_of(svg, "class=\"cell\"") == 9);
    CHECK(svg.find("latency p50 one-way, us") != std::string::npos);
    CHECK(count_of(svg, "&lt;-&gt;") == 6);  // every off-diagonal cell's tooltip
    CHECK(svg.find(": 2.00 us") != std::string::npos);
}

TEST_CASE("heat map of 300 ranks: small cells, no labels, a reasonable size")
{
    const MeshReport r = heat_report(300);
    const std::string svg = qps::formatters::mesh_svg(r, Metric::bw);
    CHECK(count_of(svg, "class=\"cell\"") == 90000);
    CHECK(count_of(svg, "class=\"row-label\"") == 0);
    CHECK(svg.size() < 20'000'000);
    CHECK(svg.find("width=\"4\" height=\"4\"") != std::string::npos);
}
