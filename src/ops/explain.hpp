// `explain`'s operation: the values of one topic, or every value found in
// free text (lines given, a log file, or standard input), decoded from
// explain's tables (src/explain/). The topics' words (names, values, verbs,
// providers) come with it, for the command line to offer.
#pragma once

#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "src/explain/log.hpp"
#include "src/explain/topics.hpp"

namespace qps::ops {

// Each value of one topic, in order. A value the topic cannot read:
// UsageError naming it and what the topic takes (nothing decoded).
std::vector<explain::Explanation> explain_values(const std::string& topic, const std::vector<std::string>& values,
                                                 const explain::Context& context);

// The values in these lines of text.
explain::LogReport explain_lines(const std::vector<std::string>& lines);

// A log to read: a file, or standard input for "-". A file that cannot be
// read: UsageError naming it and why.
struct LogInput {
    std::unique_ptr<std::istream> file;  // null: standard input
    // Standard input read through a buffer that waits on it and on the
    // interrupt pipe together (net/interrupt.hpp): SIGINT/SIGTERM end the
    // read whenever they come, not only while read() blocks.
    std::unique_ptr<std::streambuf> stdin_buf;
    std::unique_ptr<std::istream> stdin_stream;
    std::istream& in() const;
};
LogInput open_log(const std::string& path);

// The values in the log, each non-blank line to `each` as it is read;
// nothing is kept, so memory does not grow with the log. A pipe can stay
// open: SIGINT/SIGTERM end the read with the lines read so far (true:
// interrupted).
bool scan_log(const LogInput& log, const std::function<void(const explain::LogLine&)>& each);

}  // namespace qps::ops
