// util::Spool: records come back in the order they were put aside, whether
// they stayed in memory or went to the temporary file, empty and long ones too.
#include <doctest/doctest.h>
#include <string>
#include <utility>
#include <vector>

#include "src/util/spool.hpp"

using namespace qps;

TEST_CASE("util::Spool gives back every record in order, in memory and past it in its file")
{
    for (const std::size_t limit : {std::size_t{1} << 20, std::size_t{64}}) {
        util::Spool s(limit);
        std::vector<std::pair<std::uint64_t, std::string>> want;
        for (std::uint64_t i = 1; i <= 500; ++i) {
            std::string text = i % 7 == 0 ? std::string() : "line " + std::to_string(i);
            if (i == 250)
                text = std::string(200000, 'z');  // longer than a read of the file
            if (i == 251)
                text = std::string("bytes\0\xff\n", 9);
            s.add(i * 3, text);
            want.emplace_back(i * 3, text);
        }
        CHECK(s.size() == 500);
        std::vector<std::pair<std::uint64_t, std::string>> got;
        s.each([&](std::uint64_t n, std::string_view t) { got.emplace_back(n, std::string(t)); });
        CHECK_MESSAGE(got == want, "in memory up to ", limit, " bytes");
        // Read twice, and added to after: still everything, in order.
        s.add(9999, "after");
        want.emplace_back(9999, "after");
        got.clear();
        s.each([&](std::uint64_t n, std::string_view t) { got.emplace_back(n, std::string(t)); });
        CHECK(got == want);
    }
}
