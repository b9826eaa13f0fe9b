#include "src/finding.hpp"

#include <fmt/format.h>

#include "src/error.hpp"

namespace qps {

std::string_view status_name(Status s)
{
    switch (s) {
    case Status::ok: return "ok";
    case Status::warn: return "warn";
    case Status::fail: return "fail";
    case Status::skipped: return "skipped";
    }
    return "?";
}

Finding ok(std::string id, std::string summary)
{
    Finding f;
    f.id = std::move(id);
    f.summary = std::move(summary);
    return f;
}

std::string error_line(const Finding& f)
{
    return f.fix.empty() ? f.summary : fmt::format("{}; fix: {}", f.summary, f.fix);
}

void throw_first_failure(const std::vector<Finding>& findings)
{
    for (const Finding& f : findings) {
        if (!f.failed())
            continue;
        if (f.cause == Cause::option)
            throw UsageError(error_line(f));
        throw OperationError(error_line(f));
    }
}

}  // namespace qps
