// `explain`'s core: one number or name of a topic decoded both ways from the
// decode tables the rest of qpscope uses (one source of truth), with what it
// means and what to check. No device is opened. src/explain/log.hpp finds
// such values in free text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qps::explain {

struct Fact {
    std::string key;    // JSON member name
    std::string label;  // text label
    std::string text;
};

struct Explanation {
    std::string topic;
    std::string input;                // as given
    std::int64_t raw = 0;             // the number
    std::string name;                 // its name ("RETRY_EXC_ERR", "1024", "67.109 ms"; masks: names joined by |)
    std::string number;               // the value given by name: its number ("12"; masks "0x21"), else ""
    std::vector<std::string> names;   // masks: every set bit by name
    std::uint64_t unknown_bits = 0;   // masks: set bits without a name
    std::vector<Fact> facts;          // meaning, derived values
    std::vector<std::string> checks;  // what to check, most likely first
    // False when the value is valid but no public source gives its meaning
    // (a vendor syndrome): the facts say so.
    bool decoded = true;
};

struct TopicInfo {
    std::string_view name;    // "wc-status"
    std::string_view what;    // one line: what these numbers are
    std::string_view valid;   // what a value may be
};

// Every topic, in the order `explain --help` lists them.
std::span<const TopicInfo> topics();

struct Context {
    std::optional<int> retry_cnt;  // timeout: derive the wait before "retry exceeded"
    std::optional<int> rnr_retry;  // rnr-timer: the wait before "RNR retry exceeded"
    std::string verb;              // errno: the verb that failed ("modify_qp")
    std::string vendor;            // vendor-err: the provider ("mlx5", "efa"); "" = every one
};

// The names a value of `topic` may be given as (for completion); empty for
// a topic of numbers only.
std::vector<std::string> value_names(std::string_view topic);
// The verbs `errno --verb` knows, and the providers `vendor-err --vendor` knows.
std::vector<std::string> verb_names();
std::vector<std::string> vendor_names();

// UsageError for an unknown topic (with "did you mean") or a value out of
// range or unknown (naming what is valid).
Explanation explain(std::string_view topic, std::string_view value, const Context& context = {});

}  // namespace qps::explain
