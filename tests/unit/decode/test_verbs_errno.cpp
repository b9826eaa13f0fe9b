// The errno-per-verb table: each (verb, errno) once, every verb known,
// errnos real, and the rows users hit most say what to check.
#include <doctest/doctest.h>
#include <set>
#include <string>

#include "src/decode/verbs_errno.hpp"

using namespace qps::decode;

TEST_CASE("verb errnos: unique pairs of known verbs, real errnos, checks present")
{
    std::set<std::string> verbs;
    for (const auto& v : verb_table)
        CHECK(verbs.insert(std::string(v.name)).second);
    std::set<std::pair<std::string, int>> pairs;
    for (const auto& e : verb_errno_table) {
        CHECK(verbs.count(std::string(e.verb)) == 1);
        CHECK(pairs.insert({std::string(e.verb), e.err}).second);
        CHECK(e.err >= 1);
        CHECK(e.err <= 133);
        CHECK_FALSE(e.meaning.empty());
        CHECK_FALSE(e.checks.empty());
    }
    CHECK(pairs.count({"modify_qp", EINVAL}) == 1);
    CHECK(pairs.count({"reg_mr", ENOMEM}) == 1);
}
