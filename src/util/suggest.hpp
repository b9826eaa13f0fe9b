// "Did you mean": the closest of a set of names to a mistyped word, for the
// one-line errors about an unknown command, option or device.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qps::util {

// Edit distance (optimal string alignment): insertions, deletions,
// substitutions and transpositions of two neighbours each count one, so
// "prots" is one edit away from "ports".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a likely
// typo: at most one edit per three characters of the word (at least one),
// and fewer edits than the word has characters. Ties go to the earlier
// candidate; an exact match is returned as it is.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

// " did you mean 'ports'?" (quoted with `quote`), or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view quote = "'");

// The one-line error for a name that is not one of `names`:
// "unknown device 'rxe9': did you mean 'rxe0'? devices on this host are rxe0"
// from ("device", "rxe9", {"rxe0"}, "devices on this host are").
std::string unknown_name_message(std::string_view what, std::string_view name, const std::vector<std::string>& names,
                                 std::string_view valid_are);

}  // namespace qps::util
