// `explain --log`: every value in free text (a pasted NCCL, UCX, MPI,
// perftest, rdma-core or kernel line) that a pattern of log_patterns can
// attribute, explained with the line it came from. A line nothing matches is
// kept as unattributed, never dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/explain/topics.hpp"

namespace qps::explain {

// How a pattern finds its value: a regular expression whose first group is
// the value, or one of the scanners that compare against a library's own
// strings (libibverbs' ibv_wc_status_str, glibc's strerror), parse
// addresses, or find the kernel storage consumers' lines
// (src/decode/kernel_log.hpp: the event's id is the value, its consumer the
// source).
enum class Scan { regex, wc_status_text, errno_text, gid, device_port, kernel_event };

struct LogPattern {
    std::string_view id;       // "nccl-status"
    std::string_view source;   // who prints it ("NCCL net_ib", "UCX ib_mlx5", "any")
    Scan scan;
    std::string_view regex;    // Scan::regex: RE2 syntax, case-insensitive, the first group that took part the value
    std::string_view topic;    // the explain topic of the value ("port" for a device and port)
    std::string_view vendor;   // vendor-err: the provider the source implies ("" = unknown)
    std::string_view example;  // a line in the source's real format that the pattern matches
    // Scan::regex, only where RE2's FilteredRE2 derives no literal from the
    // regex (it gives up on some alternations; src/explain/log_match.hpp):
    // lower-case words, '|' between them, one of which every match holds.
    std::string_view needs = {};
};

// Every pattern, in the order they are tried on a line.
std::span<const LogPattern> log_patterns();

struct Attribution {
    std::string pattern;   // LogPattern::id
    std::string source;    // LogPattern::source
    std::string value;     // as found in the line
    Explanation explanation;
    // Which building of an attribution this is (nonzero, one process-wide
    // count): attributions of one build are equal, the same value of a log
    // found again, so a printer may write the second as it wrote the first
    // (formatters::Printer::replay). 0: not known.
    std::uint64_t build = 0;
};

struct LogLine {
    std::size_t number = 0;  // 1-based line number in the input
    std::string text;                // the bytes as read (a log is bytes, not UTF-8)
    bool utf8 = true;                // false: the line holds bytes that are not UTF-8
    std::vector<Attribution> found;  // empty: unattributed
};

struct LogReport {
    std::vector<LogLine> lines;  // every non-blank line, in order
    bool interrupted = false;    // SIGINT/SIGTERM ended the reading: the lines read so far
    std::size_t attributed_lines() const;
    std::size_t values() const;
    bool all_decoded() const;    // every value found was decoded
    // The numbers of the lines that hold bytes that are not UTF-8 (each is
    // still scanned like any other line).
    std::vector<std::size_t> not_utf8_lines() const;
};

// The values of one line, each once (by topic and number).
std::vector<Attribution> attribute_line(std::string_view line);
// Each non-blank line of `in` with its values, to `each` as soon as it is
// read; nothing is kept, so memory does not grow with the log.
void scan_log(std::istream& in, const std::function<void(const LogLine&)>& each);
// Every non-blank line of `in`, kept (scan_log into a LogReport).
LogReport explain_log(std::istream& in);

}  // namespace qps::explain
