// The JSON type of the whole tree: objects keep their keys in insertion
// order, so documents read in the order the reports define.
#pragma once

#include <nlohmann/json.hpp>

namespace qps {

using Json = nlohmann::ordered_json;

}  // namespace qps
