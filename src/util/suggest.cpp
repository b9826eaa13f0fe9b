#include "src/util/suggest.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace qps::util {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    // Three rows of the dynamic-programming table: i-2, i-1 and i.
    const std::size_t n = b.size();
    std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
    for (std::size_t j = 0; j <= n; ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= n; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        before.swap(prev);
        prev.swap(cur);
    }
    return prev[n];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates)
{
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance && d < std::max<std::size_t>(word.size(), 1)) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates, std::string_view quote)
{
    const auto c = closest(word, candidates);
    return c ? fmt::format(" did you mean {}{}{}?", quote, *c, quote) : std::string{};
}

std::string unknown_name_message(std::string_view what, std::string_view name, const std::vector<std::string>& names,
                                 std::string_view valid_are)
{
    return fmt::format("unknown {} '{}':{} {} {}", what, name, did_you_mean(name, names), valid_are,
                       names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
}

}  // namespace qps::util
