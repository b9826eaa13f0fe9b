#include "src/ops/explain.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"

namespace qps::ops {

std::vector<explain::Explanation> explain_values(const std::string& topic, const std::vector<std::string>& values,
                                                 const explain::Context& context)
{
    std::vector<explain::Explanation> all;
    all.reserve(values.size());
    for (const auto& v : values)
        all.push_back(explain::explain(topic, v, context));
    return all;
}

explain::LogReport explain_lines(const std::vector<std::string>& lines)
{
    std::string joined;
    for (const auto& l : lines)
        joined += l + '\n';
    std::istringstream in(joined);
    return explain::explain_log(in);
}

std::istream& LogInput::in() const { return file ? *file : std::cin; }

LogInput open_log(const std::string& path)
{
    LogInput log;
    if (path == "-")
        return log;
    auto in = std::make_unique<std::ifstream>(path);
    if (!*in)
        throw UsageError(fmt::format("the log '{}' cannot be read: {}", path, std::strerror(errno)));
    log.file = std::move(in);
    return log;
}

bool scan_log(const LogInput& log, const std::function<void(const explain::LogLine&)>& each)
{
    explain::scan_log(log.in(), each);
    // Standard input: EINTR (no SA_RESTART) ends the read, what was read is reported.
    return !log.file && net::interrupt_pending();
}

}  // namespace qps::ops
