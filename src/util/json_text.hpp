// The text of a JSON document that holds bytes from outside: never throws
// for a string that is not UTF-8 (nlohmann's dump() would: type_error.316).
// Strings should have passed util::to_utf8 already; this is the last safety
// net, and nlohmann's replace handler substitutes U+FFFD for the same
// maximal ill-formed subparts as to_utf8 does (tests/unit/util), so the
// convention of src/util/outside_bytes.hpp holds either way. Keys too.
#pragma once

#include <string>

namespace qps::util {

template <class Json>
std::string json_text(const Json& document, int indent = -1)
{
    return document.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace qps::util
