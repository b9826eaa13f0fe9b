// explain --log's matching: RE2 (linear in the line, whatever the line
// holds: no backtracking on crafted input) for every regex of
// log_patterns() and of decode::kernel_log_events, and one prefilter pass a
// line. The prefilter is an RE2::Set of literal strings run once over the
// lower-cased line: the atoms RE2's FilteredRE2 derives from each pattern's
// regex (a regex can match only where its atoms are), the kernel events'
// needles, and the words of the status and errno scanners. Only what passes
// is tried, so a line that holds none of them costs that one pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <re2/re2.h>
#include <string>
#include <string_view>
#include <vector>

namespace qps::explain::detail {

// A value a library prints in words: ibv_wc_status_str()'s, strerror()'s.
struct KnownText {
    std::int64_t value;
    std::string text;  // lower case
    std::string name;  // "ibv_wc_retry_exc_err" (lower case), "EINVAL"
};

// ibv_wc_status_str()'s words for every status but SUCCESS, the IBV_WC_
// names, and the kernel's words where they differ.
const std::vector<KnownText>& status_texts();
// strerror()'s words and the E names of every errno.
const std::vector<KnownText>& errno_texts();

// What the prefilter let through for one line (each entry may be in the
// line; its scanner still checks it exactly).
struct LineCandidates {
    std::vector<char> pattern;       // a flag per log_patterns() entry (regexes only)
    std::vector<int> status;         // indices into status_texts(), ascending
    std::vector<int> errnos;         // into errno_texts(), ascending
    std::vector<int> kernel_event;   // into decode::kernel_log_events, ascending
    bool device = false;             // the device regex
    // How many lines in a row held a literal: from two on, the next line is
    // asked for the list of them at once (a log of errors holds one in every
    // line: one pass, not two; a log with one now and then keeps the early stop).
    unsigned hit_run = 0;
    // The filter's answers for the atoms of lines before (a log repeats its
    // kinds of line): atoms -> patterns, emptied when full.
    std::map<std::vector<int>, std::vector<int>> filter_answers;
};

// What every match of a case-insensitive regex starts with, read from its
// text, lower case: after an optional \b, its literal characters up to the
// first operator (one that a quantifier follows is left out). RE2 skips to
// a regex's literal prefix itself (memchr), but not past a \b, and every
// pattern starts with one: without this each search runs its DFA from the
// start of the line. "" when the regex starts with no literal or has an
// alternative at its top level, or the literal is not ASCII (RE2's Latin-1
// case folding and util::lower agree on ASCII only).
std::string match_lead(std::string_view regex);

class LogMatcher {
public:
    // Compiled once. A regex of the tables RE2 cannot compile: std::logic_error naming it.
    static const LogMatcher& get();

    // The candidates of a line, given lower-cased (util::lower).
    void candidates(std::string_view lower_line, LineCandidates& out) const;

    // log_patterns()[i]'s regex (case-insensitive), for a Scan::regex pattern.
    const re2::RE2& pattern(std::size_t i) const;
    // The text (lower case) every match of log_patterns()[i]'s regex starts
    // with ("status=" for \bstatus=(...)), "" when it has none (match_lead).
    std::string_view lead(std::size_t i) const;
    // decode::kernel_log_events[i]'s regex (case-insensitive).
    const re2::RE2& kernel_event(std::size_t i) const;
    // A device name and, after ':', its port ("mlx5_0:1"), case-sensitive.
    const re2::RE2& device() const;
    // The ids of the patterns the prefilter cannot skip (no literal derived,
    // no LogPattern::needs): each runs on every line.
    std::vector<std::string_view> unfiltered() const;

    LogMatcher(const LogMatcher&) = delete;
    LogMatcher& operator=(const LogMatcher&) = delete;
    ~LogMatcher();

private:
    LogMatcher();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace qps::explain::detail
