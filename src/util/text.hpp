// Small text helpers every floor uses (one of each).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qps::util {

// `s` without leading and trailing ASCII white space (space, \t, \n, \v, \f, \r).
std::string_view trim(std::string_view s);
// ASCII letters in lower case; every other byte (UTF-8 'µ') unchanged.
std::string lower(std::string_view s);
// ASCII upper case.
std::string upper(std::string_view s);
// The words with `sep` between them.
std::string join(const std::vector<std::string>& words, std::string_view sep = " ");
// The pieces of `s` between the `sep` bytes ("a,,b" -> "a", "", "b"; "" -> none).
std::vector<std::string> split(std::string_view s, char sep);

}  // namespace qps::util
