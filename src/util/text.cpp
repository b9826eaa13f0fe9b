#include "src/util/text.hpp"

namespace qps::util {

namespace {
bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

std::string_view trim(std::string_view s)
{
    while (!s.empty() && ascii_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && ascii_space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (auto& c : out)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    return out;
}

std::string join(const std::vector<std::string>& words, std::string_view sep)
{
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i)
            out += sep;
        out += words[i];
    }
    return out;
}

std::vector<std::string> split(std::string_view s, char sep)
{
    std::vector<std::string> out;
    if (s.empty())
        return out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t at = s.find(sep, start);
        out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return out;
        start = at + 1;
    }
}

}  // namespace qps::util
