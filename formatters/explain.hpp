// Layout of `qpscope explain`: each value with its name, facts and what to
// check; for --log, each line with what was found in it, and the lines
// nothing was found in.
#pragma once

#include <cstddef>
#include <vector>

#include "formatters/printer.hpp"
#include "src/explain/log.hpp"
#include "src/explain/topics.hpp"
#include "src/util/spool.hpp"

namespace qps::formatters {

void render_explanations(const std::vector<explain::Explanation>& all, Printer& p);
void render_explain_log(const explain::LogReport& r, Printer& p);

// explain --log's report written as the log is read: an attributed line at
// once, the unattributed ones put aside (util::Spool) until finish() lists
// them after, with the counts. Memory does not grow with the log (the JSON
// printer still holds its document until the end).
class ExplainLogWriter {
public:
    explicit ExplainLogWriter(Printer& p);
    void line(const explain::LogLine& l);
    void finish(bool interrupted);

    std::size_t lines() const { return lines_; }
    std::size_t attributed() const { return attributed_; }
    bool all_decoded() const { return all_decoded_; }

private:
    Printer& p_;
    util::Spool unattributed_;
    std::vector<std::size_t> not_utf8_;
    std::size_t lines_ = 0;
    std::size_t attributed_ = 0;
    std::size_t values_ = 0;
    bool all_decoded_ = true;
    std::string heading_;  // a heading's text, its memory kept from line to line
};
// The topics with what each is and what a value may be (`explain --list`).
void render_explain_topics(Printer& p);

}  // namespace qps::formatters
