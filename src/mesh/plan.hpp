// Which pairs of a mesh run test, and in which round: the pair plans (all,
// ring, random:K), the round-robin tournament that puts every rank in at
// most one pair a round, and the cost model (rounds and wall time for N
// ranks). Pure logic: every rank computes the same plan from the same
// inputs, so the schedule needs no exchange.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qps::mesh {

enum class PairPlan { all, ring, random };

struct PairSpec {
    PairPlan plan = PairPlan::all;
    std::uint32_t k = 0;  // random: partners per rank
    std::uint64_t seed = 1;
};

// "all", "ring", "random:K" (K >= 1); UsageError naming the value and the forms.
PairSpec parse_pairs(std::string_view text);
std::string pairs_name(const PairSpec& spec);

struct Pair {
    std::uint32_t a = 0, b = 0;  // a < b; a drives (client), b answers
    friend bool operator==(const Pair&, const Pair&) = default;
};

struct Schedule {
    std::uint32_t ranks = 0;
    std::vector<std::vector<Pair>> rounds;  // in each round a rank is in at most one pair

    std::size_t pair_count() const;
    // The pair `rank` is in during round `r`, or nullptr (it sits out).
    const Pair* pair_of(std::size_t r, std::uint32_t rank) const;
};

// The round-robin tournament (circle method): every pair of n ranks once,
// in n-1 rounds for even n and n rounds for odd n (one rank sits out each).
Schedule round_robin(std::uint32_t n);

// The pairs of the plan for n ranks, each once, a < b, in a fixed order.
std::vector<Pair> plan_pairs(const PairSpec& spec, std::uint32_t n);

// The schedule of the plan: `all` is the tournament; ring and random:K
// pack their pairs greedily into rounds in which no rank appears twice.
Schedule schedule(const PairSpec& spec, std::uint32_t n);

// The cost model: what one pair's tests take (seconds, from the options)
// and what a round adds for coordination (exchange, results, barrier).
struct CostModel {
    double pair_seconds = 0;
    double coordination_seconds = 0.005;
};
struct CostEstimate {
    std::uint32_t ranks = 0;
    std::size_t pairs = 0, rounds = 0;
    double seconds = 0;  // rounds x (pair + coordination)
};
CostEstimate estimate(const PairSpec& spec, std::uint32_t n, const CostModel& model);

}  // namespace qps::mesh
