// Message sizes as users give them: "64", "64,4096", "2:8M" (a doubling
// sweep), with K/M/G suffixes (powers of 1024).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace qps::perf {

// Throws UsageError naming the bad part and what is valid. `max` bounds
// every size (e.g. the device's max_msg_sz).
std::vector<std::uint32_t> parse_sizes(std::string_view text, std::uint64_t max = 1ull << 31);
// "1K" -> 1024; nullopt-like failure as a UsageError naming `what`.
std::uint64_t parse_size(std::string_view text, std::string_view what);

}  // namespace qps::perf
