// Conversion of printer values to JSON, shared by the JSON printer and the
// JSON error output of main.
#pragma once

#include <nlohmann/json.hpp>

#include "formatters/printer.hpp"

namespace qps::formatters {

// Bumped when a field is renamed or removed; adding fields keeps it.
inline constexpr int schema_version = 2;

nlohmann::ordered_json to_json(const Value& value);

}  // namespace qps::formatters
