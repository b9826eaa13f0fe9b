#include "src/perf/sizes.hpp"

#include <charconv>
#include <fmt/format.h>

#include "src/error.hpp"

namespace qps::perf {

std::uint64_t parse_size(std::string_view text, std::string_view what)
{
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    std::uint64_t mult = 1;
    if (ec == std::errc{} && p != end && p + 1 == end) {
        switch (*p) {
        case 'K': case 'k': mult = 1ull << 10; break;
        case 'M': case 'm': mult = 1ull << 20; break;
        case 'G': case 'g': mult = 1ull << 30; break;
        default: mult = 0;
        }
        ++p;
    }
    if (text.empty() || ec != std::errc{} || p != end || mult == 0 || v > (~0ull / mult))
        throw UsageError(fmt::format("{} '{}': expected bytes, e.g. 64, 4K, 1M", what, text));
    return v * mult;
}

std::vector<std::uint32_t> parse_sizes(std::string_view text, std::uint64_t max)
{
    std::vector<std::uint32_t> out;
    auto check = [&](std::uint64_t v, std::string_view part) {
        if (v == 0 || v > max)
            throw UsageError(fmt::format("{} '{}': each size must be 1..{} bytes", given(Given::size), part, max));
        return static_cast<std::uint32_t>(v);
    };
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view part = text.substr(0, comma);
        if (const auto colon = part.find(':'); colon != std::string_view::npos) {
            const std::uint64_t lo = check(parse_size(part.substr(0, colon), given(Given::size)), part);
            const std::uint64_t hi = check(parse_size(part.substr(colon + 1), given(Given::size)), part);
            if (lo > hi)
                throw UsageError(
                    fmt::format("{} '{}': a sweep goes from the smaller size to the larger", given(Given::size), part));
            for (std::uint64_t v = lo; v <= hi; v *= 2)
                out.push_back(static_cast<std::uint32_t>(v));
        } else {
            out.push_back(check(parse_size(part, given(Given::size)), part));
        }
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
        if (text.empty())
            throw UsageError(fmt::format("{}: a trailing comma; give sizes like 64,4096 or a sweep like 2:8M",
                                             given(Given::size)));
    }
    if (out.empty())
        throw UsageError(fmt::format("{}: no size given; e.g. 64, 64,4096 or 2:8M", given(Given::size)));
    return out;
}

}  // namespace qps::perf
