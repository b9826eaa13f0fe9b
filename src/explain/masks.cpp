// explain's bit-mask topics: every set bit by name, unknown bits kept.
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <fmt/ranges.h>

#include "src/decode/device.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/explain/parse.hpp"

namespace qps::explain::detail {

namespace {

struct MaskTopic {
    std::string_view topic;
    std::span<const decode::FlagEntry> table;
    std::string_view prefix;  // verbs prefix shown before each name
    std::string_view what;    // one line for the "meaning" fact
};

const std::array<MaskTopic, 5> mask_topics{{
    {"qp-attr-mask", decode::qp_attr_mask_table, "IBV_QP_", "the attributes an ibv_modify_qp call sets"},
    {"access", decode::access_flags_table, "IBV_ACCESS_", "what a memory region or QP allows"},
    {"port-cap", decode::port_cap_flags_table, "IBV_PORT_", "PortInfo:CapabilityMask (IBA 14.2.5.6)"},
    {"port-cap2", decode::port_cap_flags2_table, "IBV_PORT_", "PortInfo:CapabilityMask2 (IBA 14.2.5.6)"},
    {"device-cap", decode::device_cap_flags_table, "IBV_DEVICE_", "ibv_device_attr_ex device_cap_flags_ex"},
}};

const MaskTopic& mask_topic(std::string_view topic)
{
    for (const auto& m : mask_topics)
        if (m.topic == topic)
            return m;
    throw std::logic_error("mask_topic: not a mask topic");
}

}  // namespace

bool is_mask_topic(std::string_view topic)
{
    return std::any_of(mask_topics.begin(), mask_topics.end(), [&](const MaskTopic& m) { return m.topic == topic; });
}

std::uint64_t parse_mask(std::string_view topic, std::string_view value, std::span<const decode::FlagEntry> table,
                         std::string_view prefix)
{
    if (const auto n = number_of(value)) {
        if (*n < 0)
            out_of_range(topic, value);
        return static_cast<std::uint64_t>(*n);
    }
    // "IBV_QP_STATE|IBV_QP_PORT", "STATE | PORT", "local_write,remote_read"
    std::uint64_t raw = 0;
    std::string_view rest = value;
    while (!rest.empty()) {
        const auto sep = rest.find_first_of("|,");
        std::string word = upper(trim(rest.substr(0, sep)));
        rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 1);
        std::replace(word.begin(), word.end(), '-', '_');
        if (word.rfind(prefix, 0) == 0)
            word.erase(0, prefix.size());
        std::vector<std::string> names;
        bool found = false;
        for (const auto& f : table) {
            names.emplace_back(f.name);
            if (f.name == word) {
                raw |= f.bit;
                found = true;
            }
        }
        if (!found)
            throw UsageError(util::unknown_name_message(fmt::format("{} bit", topic), word, names, "bits are"));
    }
    return raw;
}

Explanation mask_explanation(std::string_view topic, std::string_view value, const decode::Flags& flags,
                             std::string_view prefix)
{
    Explanation e = start(topic, value);
    e.raw = static_cast<std::int64_t>(flags.raw);
    e.names = flags.names;
    e.unknown_bits = flags.unknown;
    std::vector<std::string> shown;
    for (const auto& n : flags.names)
        shown.push_back(fmt::format("{}{}", prefix, n));
    if (flags.unknown)
        shown.push_back(fmt::format("{:#x} (unknown bits)", flags.unknown));
    e.name = shown.empty() ? "none" : fmt::format("{}", fmt::join(shown, " | "));
    e.facts.push_back({"hex", "hex", fmt::format("{:#x}", flags.raw)});
    return e;
}

Explanation mask(std::string_view topic, std::string_view value)
{
    const MaskTopic& m = mask_topic(topic);
    const std::uint64_t raw = parse_mask(topic, value, m.table, m.prefix);
    Explanation e = mask_explanation(topic, value, decode::decode_flags(m.table, raw), m.prefix);
    e.facts.push_back({"meaning", "meaning", std::string(m.what)});
    if (topic == "qp-attr-mask") {
        std::vector<std::string> options;
        for (const auto& o : decode::qp_attr_options(static_cast<std::uint32_t>(raw)))
            options.push_back(o);
        if (!options.empty())
            e.facts.push_back(
                {"qp_modify_options", "qp modify options", fmt::format("{}", fmt::join(options, ", "))});
    }
    if (e.unknown_bits)
        e.facts.push_back({"unknown_bits", "unknown bits",
                           fmt::format("{:#x}: no name in libibverbs' headers this qpscope was built with",
                                       e.unknown_bits)});
    return e;
}

std::vector<std::string> mask_names(std::string_view topic)
{
    std::vector<std::string> out;
    for (const auto& f : mask_topic(topic).table)
        out.emplace_back(f.name);
    return out;
}

}  // namespace qps::explain::detail
