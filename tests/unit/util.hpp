// Small helpers shared by the unit tests.
#pragma once

#include <string>

namespace qps::test {

inline bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

// The message of the E that f() throws, or "<nothing thrown>".
template <class E, class F>
std::string thrown(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "<nothing thrown>";
}

}  // namespace qps::test
