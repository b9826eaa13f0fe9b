#include "src/mesh/plan.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <random>
#include <set>

#include "src/error.hpp"

namespace qps::mesh {

PairSpec parse_pairs(std::string_view text)
{
    PairSpec spec;
    if (text == "all")
        return spec;
    if (text == "ring") {
        spec.plan = PairPlan::ring;
        return spec;
    }
    constexpr std::string_view random_prefix = "random:";
    if (text.substr(0, random_prefix.size()) == random_prefix) {
        const std::string_view k = text.substr(random_prefix.size());
        std::uint32_t value = 0;
        const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), value);
        if (ec == std::errc{} && end == k.data() + k.size() && value >= 1) {
            spec.plan = PairPlan::random;
            spec.k = value;
            return spec;
        }
    }
    throw UsageError(fmt::format("--pairs {}: expected all, ring or random:K with K a whole number >= 1", text));
}

std::string pairs_name(const PairSpec& spec)
{
    switch (spec.plan) {
    case PairPlan::all:
        return "all";
    case PairPlan::ring:
        return "ring";
    case PairPlan::random:
        return fmt::format("random:{}", spec.k);
    }
    return "all";
}

std::size_t Schedule::pair_count() const
{
    std::size_t n = 0;
    for (const auto& r : rounds)
        n += r.size();
    return n;
}

const Pair* Schedule::pair_of(std::size_t r, std::uint32_t rank) const
{
    if (r >= rounds.size())
        return nullptr;
    for (const auto& p : rounds[r])
        if (p.a == rank || p.b == rank)
            return &p;
    return nullptr;
}

namespace {

Pair ordered(std::uint32_t x, std::uint32_t y) { return x < y ? Pair{x, y} : Pair{y, x}; }

// Each pair into the first round where neither of its ranks is busy.
Schedule pack_greedily(const std::vector<Pair>& pairs, std::uint32_t n)
{
    Schedule s;
    s.ranks = n;
    std::vector<std::vector<bool>> busy;
    for (const auto& p : pairs) {
        std::size_t r = 0;
        while (r < s.rounds.size() && (busy[r][p.a] || busy[r][p.b]))
            ++r;
        if (r == s.rounds.size()) {
            s.rounds.emplace_back();
            busy.emplace_back(n, false);
        }
        s.rounds[r].push_back(p);
        busy[r][p.a] = busy[r][p.b] = true;
    }
    return s;
}

// A Fisher-Yates shuffle on the generator's raw output, so every rank (and
// every standard library) draws the same order from the same seed.
void shuffle_ranks(std::vector<std::uint32_t>& v, std::mt19937_64& gen)
{
    for (std::size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[gen() % i]);
}

}  // namespace

Schedule round_robin(std::uint32_t n)
{
    Schedule s;
    s.ranks = n;
    if (n < 2)
        return s;
    const std::uint32_t m = n % 2 == 0 ? n : n + 1;  // odd n: rank m-1 is a dummy (its partner sits out)
    for (std::uint32_t r = 0; r + 1 < m; ++r) {
        std::vector<Pair> round;
        if (m - 1 < n)
            round.push_back(ordered(r, m - 1));
        for (std::uint32_t i = 1; i < m / 2; ++i) {
            const std::uint32_t x = (r + i) % (m - 1), y = (r + (m - 1) - i) % (m - 1);
            round.push_back(ordered(x, y));
        }
        std::sort(round.begin(), round.end(), [](const Pair& p, const Pair& q) { return p.a < q.a; });
        s.rounds.push_back(std::move(round));
    }
    return s;
}

std::vector<Pair> plan_pairs(const PairSpec& spec, std::uint32_t n)
{
    std::vector<Pair> pairs;
    if (n < 2)
        return pairs;
    switch (spec.plan) {
    case PairPlan::all:
        for (const auto& round : round_robin(n).rounds)
            pairs.insert(pairs.end(), round.begin(), round.end());
        break;
    case PairPlan::ring:
        for (std::uint32_t i = 0; i < n; ++i) {
            const Pair p = ordered(i, (i + 1) % n);
            if (std::find(pairs.begin(), pairs.end(), p) == pairs.end())
                pairs.push_back(p);
        }
        break;
    case PairPlan::random: {
        // K random perfect matchings: each rank meets about K partners, and
        // a pair drawn twice is tested once.
        std::mt19937_64 gen(spec.seed);
        std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
        std::vector<std::uint32_t> order(n);
        for (std::uint32_t k = 0; k < spec.k; ++k) {
            for (std::uint32_t i = 0; i < n; ++i)
                order[i] = i;
            shuffle_ranks(order, gen);
            for (std::uint32_t i = 0; i + 1 < n; i += 2) {
                const Pair p = ordered(order[i], order[i + 1]);
                if (seen.insert({p.a, p.b}).second)
                    pairs.push_back(p);
            }
        }
        break;
    }
    }
    return pairs;
}

Schedule schedule(const PairSpec& spec, std::uint32_t n)
{
    if (spec.plan == PairPlan::all)
        return round_robin(n);
    return pack_greedily(plan_pairs(spec, n), n);
}

CostEstimate estimate(const PairSpec& spec, std::uint32_t n, const CostModel& model)
{
    CostEstimate e;
    e.ranks = n;
    const Schedule s = schedule(spec, n);
    e.pairs = s.pair_count();
    e.rounds = s.rounds.size();
    e.seconds = static_cast<double>(e.rounds) * (model.pair_seconds + model.coordination_seconds);
    return e;
}

}  // namespace qps::mesh
