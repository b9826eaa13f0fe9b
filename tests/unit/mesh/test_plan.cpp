#include <doctest/doctest.h>

#include <set>

#include "src/error.hpp"
#include "src/mesh/plan.hpp"
#include "src/mesh/report.hpp"

using namespace qps::mesh;

namespace {

// Every rank at most once a round; returns the set of pairs scheduled.
std::set<std::pair<std::uint32_t, std::uint32_t>> check_rounds(const Schedule& s)
{
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    for (const auto& round : s.rounds) {
        std::set<std::uint32_t> busy;
        for (const auto& p : round) {
            CHECK(p.a < p.b);
            CHECK(p.b < s.ranks);
            CHECK(busy.insert(p.a).second);
            CHECK(busy.insert(p.b).second);
            CHECK(seen.insert({p.a, p.b}).second);  // no pair twice
        }
    }
    return seen;
}

}  // namespace

TEST_CASE("round robin: every pair once, n-1 rounds for even n, n for odd, everyone busy when even")
{
    for (std::uint32_t n : {2u, 3u, 4u, 5u, 6u, 7u, 16u, 33u, 128u}) {
        CAPTURE(n);
        const Schedule s = round_robin(n);
        CHECK(s.rounds.size() == (n % 2 == 0 ? n - 1 : n));
        const auto seen = check_rounds(s);
        CHECK(seen.size() == n * (n - 1) / 2);
        for (const auto& round : s.rounds)
            CHECK(round.size() == n / 2);  // odd n: exactly one rank sits out
    }
    const Schedule four = round_robin(4);
    REQUIRE(four.rounds.size() == 3);
    CHECK(four.pair_of(0, 3) != nullptr);
    CHECK(round_robin(1).rounds.empty());
}

TEST_CASE("ring: each rank and the next, 2 rounds for even n, 3 for odd")
{
    const PairSpec ring = parse_pairs("ring");
    for (std::uint32_t n : {4u, 5u, 8u, 9u, 2048u}) {
        CAPTURE(n);
        const Schedule s = schedule(ring, n);
        const auto seen = check_rounds(s);
        CHECK(seen.size() == n);
        CHECK(s.rounds.size() == (n % 2 == 0 ? 2u : 3u));
        CHECK(seen.count({0, n - 1}) == 1);
    }
    CHECK(schedule(ring, 2).pair_count() == 1);
    CHECK(schedule(ring, 3).pair_count() == 3);
}

TEST_CASE("random:K: K matchings, the same for the same seed, other pairs for another")
{
    PairSpec spec = parse_pairs("random:3");
    CHECK(spec.plan == PairPlan::random);
    CHECK(spec.k == 3);
    const Schedule s = schedule(spec, 64);
    check_rounds(s);
    CHECK(s.rounds.size() <= 4);  // K matchings, a repeat dropped; greedy packing may need one more
    CHECK(s.pair_count() > 80);   // 3 x 32 draws, few repeats
    CHECK(s.pair_count() <= 96);
    const auto again = plan_pairs(spec, 64);
    CHECK(again == plan_pairs(spec, 64));
    spec.seed = 2;
    CHECK(plan_pairs(spec, 64) != again);
    const Schedule big = schedule(parse_pairs("random:4"), 2048);
    CHECK(big.rounds.size() <= 6);
    check_rounds(big);
}

TEST_CASE("--pairs: the forms, and one-line errors naming the value")
{
    CHECK(pairs_name(parse_pairs("all")) == "all");
    CHECK(pairs_name(parse_pairs("ring")) == "ring");
    CHECK(pairs_name(parse_pairs("random:12")) == "random:12");
    for (const char* bad : {"random:0", "random:", "random:x", "rings", "", "random:3x"}) {
        CAPTURE(bad);
        try {
            parse_pairs(bad);
            FAIL("accepted");
        } catch (const qps::UsageError& e) {
            const std::string what = e.what();
            CHECK(what.find(std::string("--pairs ") + bad + ":") == 0);
            CHECK(what.find("random:K") != std::string::npos);
        }
    }
}

TEST_CASE("cost model: rounds and time for 8, 128 and 2048 ranks")
{
    TestSpec t;  // 1000 x 2 B ping-pongs, 2 x 2000 x 64 KiB writes
    const double pair = pair_seconds(t, 100, 2);
    // 1100 round trips of 4 us, 2 x 2100 x 64 KiB at 100 Gb/s, 10 ms set-up
    CHECK(pair == doctest::Approx(0.01 + 1100 * 4e-6 + 2 * 2100 * 65536.0 * 8 / 100e9).epsilon(1e-9));
    const CostModel m{pair};
    const auto all8 = estimate(parse_pairs("all"), 8, m);
    CHECK(all8.rounds == 7);
    CHECK(all8.pairs == 28);
    CHECK(all8.seconds == doctest::Approx(7 * (pair + m.coordination_seconds)));
    CHECK(estimate(parse_pairs("all"), 2048, m).rounds == 2047);
    CHECK(estimate(parse_pairs("ring"), 2048, m).rounds == 2);
    CHECK(estimate(parse_pairs("all"), 128, m).pairs == 128 * 127 / 2);
    t.duration_s = 1.0;
    t.lat = false;
    CHECK(pair_seconds(t, 100, 2, 0) == doctest::Approx(2 * (1.0 + 100 * 65536.0 * 8 / 100e9)));
}
