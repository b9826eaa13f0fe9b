// `explain`'s operation: the values of one topic, or every value found in
// free text (lines given, a log file, or standard input), decoded from
// explain's tables (src/explain/). The topics' words (names, values, verbs,
// providers) come with it, for the command line to offer.
#pragma once

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

// The values in a log file, or in standard input for "-". A pipe can stay
// open: SIGINT/SIGTERM end the read with the lines read so far
// (`interrupted` set). A file that cannot be read: UsageError naming it
// and why.
explain::LogReport explain_log(const std::string& path);

}  // namespace qps::ops
