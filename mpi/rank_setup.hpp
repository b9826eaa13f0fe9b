// This rank's device, port and GID, checked before any pair; its record
// for the rank table.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "src/error.hpp"
#include "src/mesh/options.hpp"
#include "src/mesh/report.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::mpi {

// This rank's device, port and GID, checked the way ping-pong checks them
// (src/health/preflight), before any pair: a local fault is named as this
// rank's, never as its partners' silence.
// `parse_error`: this rank's command line was refused (its set-up error).
// `opened`: the device, opened once here, for the probe and every pair.
// `spell`: a usage error of the core as this program's command line spells
// it (commands::spelled).
mesh::RankInfo local_setup(const mesh::MeshOptions& o, std::uint32_t rank, int local_rank, const std::string& parse_error,
                           verbs::SharedDevice& opened, const std::function<std::string(const UsageError&)>& spell);

}  // namespace qps::mpi
