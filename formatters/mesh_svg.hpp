// The mesh heat map: a standalone SVG document, rank x rank, a row the
// sender (bandwidth) or rank a (latency), green for the run's best to red
// for its worst, failed pairs dark with an X, untested pairs blank, the
// diagonal grey, hosts on both axes, a tooltip (<title>) on every cell.
// Deterministic: the same report gives the same bytes.
#pragma once

#include <string>

#include "src/mesh/analysis.hpp"
#include "src/mesh/report.hpp"

namespace qps::formatters {

std::string mesh_svg(const mesh::MeshReport& r, mesh::Metric metric);

}  // namespace qps::formatters
