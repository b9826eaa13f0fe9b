#include "src/error.hpp"

#include <cstring>
#include <fmt/format.h>

namespace qps {

namespace {
std::string describe(const std::string& call, int err, const std::string& hint)
{
    std::string s = fmt::format("{} failed: {} ({})", call, errno_name(err), std::strerror(err));
    if (!hint.empty())
        s += fmt::format(" — {}", hint);
    return s;
}
}  // namespace

SystemError::SystemError(std::string c, int e, std::string h)
    : OperationError(describe(c, e, h)), call(std::move(c)), err(e), hint(std::move(h))
{
}

std::string errno_name(int err)
{
    if (const char* n = strerrorname_np(err))
        return n;
    return fmt::format("errno {}", err);
}

}  // namespace qps
