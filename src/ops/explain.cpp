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

explain::LogReport explain_log(const std::string& path)
{
    if (path == "-") {
        // EINTR (no SA_RESTART) ends the read: what was read is reported.
        explain::LogReport report = explain::explain_log(std::cin);
        report.interrupted = net::interrupt_pending();
        return report;
    }
    std::ifstream in(path);
    if (!in)
        throw UsageError(fmt::format("the log '{}' cannot be read: {}", path, std::strerror(errno)));
    return explain::explain_log(in);
}

}  // namespace qps::ops
