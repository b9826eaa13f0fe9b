// The mesh report laid out: one JSON document (every rank, the schedule,
// every pair with both sides' figures, the round timings, the analysis)
// and the text a person reads (summary, failed pairs, worst pairs,
// outliers, slow nodes). Built directly, not through the Printer: the
// text shows a digest, not every one of N(N-1)/2 pairs.
#pragma once

#include <string>

#include "src/json.hpp"
#include "src/mesh/analysis.hpp"
#include "src/mesh/options.hpp"
#include "src/mesh/report.hpp"

namespace qps::formatters {

Json mesh_json(const mesh::MeshReport& r, const mesh::Analysis& a, const mesh::MeshOptions& o);
std::string mesh_text(const mesh::MeshReport& r, const mesh::Analysis& a, const mesh::MeshOptions& o);

}  // namespace qps::formatters
