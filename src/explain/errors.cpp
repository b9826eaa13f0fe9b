// explain errno: what an errno means, and with --verb what it means for the
// verb or rdma_cm call that returned it and what to check.
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/qp.hpp"
#include "src/decode/verbs_errno.hpp"
#include "src/explain/parse.hpp"
#include "src/qp/validate.hpp"

namespace qps::explain::detail {

namespace {

constexpr int errno_max = 133;  // EHWPOISON, the last errno Linux defines

std::string_view errno_name(int e)
{
    const char* n = ::strerrorname_np(e);
    return n ? n : "";
}

std::string_view errno_text(int e)
{
    const char* d = ::strerrordesc_np(e);
    return d ? d : "";
}

// 22, -22, EINVAL, "Invalid argument" (case-insensitive).
int parse_errno(std::string_view value)
{
    if (const auto n = number_of(value)) {
        const auto v = *n < 0 ? -*n : *n;
        if (v < 1 || v > errno_max || errno_name(static_cast<int>(v)).empty())
            out_of_range("errno", value);
        return static_cast<int>(v);
    }
    const std::string u = upper(trim(value));
    std::vector<std::string> names;
    for (int e = 1; e <= errno_max; ++e) {
        const std::string_view name = errno_name(e);
        if (name.empty())
            continue;
        if (u == name || u == upper(errno_text(e)))
            return e;
        names.emplace_back(name);
    }
    throw UsageError(util::unknown_name_message("errno", u, names, "names are"));
}

const decode::VerbInfo* find_verb(std::string_view verb)
{
    for (const auto& v : decode::verb_table)
        if (v.name == verb)
            return &v;
    return nullptr;
}

}  // namespace

std::vector<std::string> errno_names()
{
    std::vector<std::string> out;
    for (int e = 1; e <= errno_max; ++e)
        if (!errno_name(e).empty())
            out.emplace_back(errno_name(e));
    return out;
}

Explanation errno_value(std::string_view value, const Context& context)
{
    const int err = parse_errno(value);
    Explanation e = start("errno", value);
    e.raw = err;
    e.name = std::string(errno_name(err));
    e.facts.push_back({"text", "text", std::string(errno_text(err))});
    if (context.verb.empty())
        return e;
    std::string verb = context.verb;
    if (verb.rfind("ibv_", 0) == 0)
        verb.erase(0, 4);
    const decode::VerbInfo* info = find_verb(verb);
    if (!info)
        throw UsageError(util::unknown_name_message("verb", context.verb, verb_names(), "verbs are"));
    e.facts.push_back({"verb", "verb", fmt::format("{}: {}", info->call, info->returns)});
    if (const decode::VerbErrno* v = decode::find_verb_errno(verb, err)) {
        e.facts.push_back({"meaning", "meaning", std::string(v->meaning)});
        for (auto& c : decode::split_checks(v->checks))
            e.checks.push_back(std::move(c));
    } else {
        std::vector<std::string> known;
        for (const auto& v : decode::verb_errno_table)
            if (v.verb == verb)
                known.emplace_back(errno_name(v.err));
        e.facts.push_back(
            {"meaning", "meaning",
             fmt::format("{} is not an errno {} is known to return{}", e.name, info->call,
                         known.empty() ? std::string() : fmt::format(" (known: {})", fmt::join(known, ", ")))});
        e.decoded = false;
    }
    if (verb == "modify_qp" && err == EINVAL)
        e.facts.push_back({"qp_modify_checks", "qp modify checks first",
                           fmt::format("{}", fmt::join(qp::modify_checks, "; "))});
    return e;
}

}  // namespace qps::explain::detail

namespace qps::explain {

std::vector<std::string> verb_names()
{
    std::vector<std::string> out;
    for (const auto& v : decode::verb_table)
        out.emplace_back(v.name);
    return out;
}

}  // namespace qps::explain
