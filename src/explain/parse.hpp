// What every topic of `explain` shares: reading a number or a name the way a
// log or a header writes it, and the one-line errors for a bad value.
// Internal to src/explain.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/error.hpp"
#include "src/explain/topics.hpp"
#include "src/util/suggest.hpp"
#include "src/util/text.hpp"

namespace qps::explain::detail {

std::string upper(std::string_view s);
using util::trim;

// "12", "0x1f", "-22": a whole number; nullopt for anything else.
std::optional<std::int64_t> number_of(std::string_view s);

Explanation start(std::string_view topic, std::string_view input);

// UsageError "<topic> '<value>': not a known value; valid: <the topic's valid>".
[[noreturn]] void out_of_range(std::string_view topic, std::string_view value);

// An enum topic: a number of the table, or a name (case-insensitive, with or
// without the verbs prefix such as IBV_WC_).
template <class Entry>
const Entry& enum_entry(std::string_view topic, std::string_view value, std::span<const Entry> table,
                        std::string_view prefix)
{
    if (const auto n = number_of(value)) {
        for (const auto& e : table)
            if (e.value == *n)
                return e;
        out_of_range(topic, value);
    }
    std::string u = upper(trim(value));
    if (!prefix.empty() && u.rfind(prefix, 0) == 0)
        u.erase(0, prefix.size());
    std::vector<std::string> names;
    for (const auto& e : table) {
        if (e.name == u)
            return e;
        names.emplace_back(e.name);
    }
    throw UsageError(util::unknown_name_message(topic, u, names, "names are"));
}

template <class Entry>
Explanation named(std::string_view topic, std::string_view value, std::span<const Entry> table,
                  std::string_view prefix)
{
    const Entry& entry = enum_entry(topic, value, table, prefix);
    Explanation e = start(topic, value);
    e.raw = entry.value;
    e.name = std::string(entry.name);
    return e;
}

// A bit mask: a number, or names joined by '|' or ',' (case-insensitive,
// with or without `prefix`). Unknown bits of a number are kept; an unknown
// name is a UsageError naming the valid ones.
std::uint64_t parse_mask(std::string_view topic, std::string_view value, std::span<const decode::FlagEntry> table,
                         std::string_view prefix);

// Fills raw, names, unknown_bits and name ("PREFIX_A | PREFIX_B").
Explanation mask_explanation(std::string_view topic, std::string_view value, const decode::Flags& flags,
                             std::string_view prefix);

// The topics of their own files: masks.cpp (qp-attr-mask, access,
// port-cap, port-cap2, device-cap), gid.cpp, errors.cpp (errno, vendor-err,
// mlx5-syndrome).
bool is_mask_topic(std::string_view topic);
Explanation mask(std::string_view topic, std::string_view value);
std::vector<std::string> mask_names(std::string_view topic);
Explanation gid(std::string_view value);
Explanation errno_value(std::string_view value, const Context& context);
Explanation vendor_err(std::string_view value, const Context& context);
Explanation mlx5_syndrome(std::string_view value);
std::vector<std::string> errno_names();
// storage.cpp: the kernel's storage consumers' numbers (blk-status,
// nvme-status, nvme-cm-status, srp-login-reject, iscsi-error) and log lines
// (kernel-event).
bool is_storage_topic(std::string_view topic);
Explanation storage_code(std::string_view topic, std::string_view value);
Explanation kernel_event(std::string_view value);
std::vector<std::string> storage_value_names(std::string_view topic);
std::vector<std::string> vendor_value_names(std::string_view topic);

}  // namespace qps::explain::detail
