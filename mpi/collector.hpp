// qpscope-mesh's rank 0: the report as the records of each round come in,
// rewritten to --output after rounds (at most every few seconds) and when
// the run stops, and the report at the end (stdout, --svg).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "src/mesh/options.hpp"
#include "src/mesh/report.hpp"

namespace qps::mpi {

class Collector {
public:
    // Every pair of the schedule, not run until its records come.
    Collector(mesh::MeshOptions o, mesh::MeshReport r);

    // One side's record of its pair.
    void add(const mesh::PairResult& side);
    // A pair whose rank was lost: failed with the loss as its cause.
    void lost(std::uint32_t round, std::uint32_t rank, const std::string& why);
    // The file after a round: at once for the first, then at most every
    // few seconds (all pairs of 2,048 ranks are 2 million records a write).
    void round_done(const mesh::RoundTiming& t);
    void stop(const std::string& why);
    // The report on stdout (and the files); returns the exit code.
    int finish();

private:
    void write_output();

    mesh::MeshOptions options_;
    mesh::MeshReport report_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index_;
    std::chrono::steady_clock::time_point last_write_{};
};

}  // namespace qps::mpi
