#include "src/ops/explain.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <sstream>
#include <streambuf>
#include <unistd.h>

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

namespace {

// Standard input, read only once poll() says it has bytes or ended, with
// the interrupt pipe beside it: an interrupt that came between two reads
// (while a line was decoded or printed) ends the log too, where a plain
// read() would wait for the next line for ever.
class InterruptibleStdin : public std::streambuf {
protected:
    int_type underflow() override
    {
        for (;;) {
            if (net::interrupt_pending())
                return traits_type::eof();
            pollfd p[2]{{STDIN_FILENO, POLLIN, 0}, {net::interrupt_fd(), POLLIN, 0}};
            if (::poll(p, 2, -1) < 0) {
                if (errno == EINTR)
                    continue;
                return traits_type::eof();
            }
            if (p[1].revents != 0)
                continue;  // looked at above
            const ssize_t n = ::read(STDIN_FILENO, buf_, sizeof buf_);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return traits_type::eof();
            setg(buf_, buf_, buf_ + n);
            return traits_type::to_int_type(buf_[0]);
        }
    }

private:
    char buf_[1 << 16];
};

}  // namespace

std::istream& LogInput::in() const { return file ? *file : *stdin_stream; }

LogInput open_log(const std::string& path)
{
    LogInput log;
    if (path == "-") {
        log.stdin_buf = std::make_unique<InterruptibleStdin>();
        log.stdin_stream = std::make_unique<std::istream>(log.stdin_buf.get());
        return log;
    }
    auto in = std::make_unique<std::ifstream>(path);
    if (!*in)
        throw UsageError(fmt::format("the log '{}' cannot be read: {}", path, std::strerror(errno)));
    log.file = std::move(in);
    return log;
}

bool scan_log(const LogInput& log, const std::function<void(const explain::LogLine&)>& each)
{
    explain::scan_log(log.in(), each);
    // Standard input: an interrupt ends the read, what was read is reported.
    return !log.file && net::interrupt_pending();
}

}  // namespace qps::ops
