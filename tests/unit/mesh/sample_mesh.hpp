// A mesh report to test with: n ranks ("node0", ...), every pair of the
// round-robin schedule ok, its figures set by `figures(pair_result)`.
#pragma once

#include <functional>
#include <string>

#include "src/mesh/report.hpp"

namespace qps::test {

inline mesh::MeshReport all_pairs_ok(std::uint32_t n, const std::function<void(mesh::PairResult&)>& figures)
{
    mesh::MeshReport r;
    r.schedule = mesh::round_robin(n);
    for (std::uint32_t i = 0; i < n; ++i)
        r.ranks.push_back({i, "node" + std::to_string(i), "mlx5_0", 1, "", 3, 100, "", ""});
    for (std::size_t round = 0; round < r.schedule.rounds.size(); ++round)
        for (const mesh::Pair& p : r.schedule.rounds[round]) {
            mesh::PairResult pr;
            pr.pair = p;
            pr.round = static_cast<std::uint32_t>(round);
            pr.status = mesh::PairStatus::ok;
            figures(pr);
            r.results.push_back(pr);
        }
    r.rounds_done = static_cast<std::uint32_t>(r.schedule.rounds.size());
    return r;
}

}  // namespace qps::test
