#include "src/explain/topics.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/util/suggest.hpp"

namespace qps::explain {

namespace {

constexpr std::array<TopicInfo, 13> topic_table{{
    {"wc-status", "a work completion's status (ibv_wc_status)", "0-23 or a name such as RETRY_EXC_ERR"},
    {"wc-opcode", "a work completion's opcode (ibv_wc_opcode)", "a number or a name such as RDMA_WRITE"},
    {"qp-state", "a QP state (ibv_qp_state)", "0-7 or RESET, INIT, RTR, RTS, SQD, SQE, ERR, UNKNOWN"},
    {"port-state", "a port's logical state (ibv_port_state)", "0-5 or a name such as ACTIVE"},
    {"phys-state", "a port's physical state (IBA PortPhysicalState)", "0-7 or a name such as LINK_UP"},
    {"mtu", "an MTU enum (ibv_mtu) or its size in bytes", "1-5, or 256, 512, 1024, 2048, 4096"},
    {"width", "a port's active width code (IBA)", "1, 2, 4, 8, 16 or 1X, 4X, 8X, 12X, 2X"},
    {"speed", "a port's active speed code (IBA, with the extended speeds)", "a code or SDR ... XDR"},
    {"timeout", "the local ACK timeout (ibv_qp_attr.timeout)", "a code 0-31, or a duration such as 67ms"},
    {"rnr-timer", "the RNR NAK timer (ibv_qp_attr.min_rnr_timer)", "a code 0-31, or a duration such as 1.28ms"},
    {"retry-cnt", "transport retries after the first attempt (ibv_qp_attr.retry_cnt)", "0-7"},
    {"rnr-retry", "RNR retries (ibv_qp_attr.rnr_retry); 7 means infinite", "0-7"},
    {"qp-attr-mask", "an ibv_modify_qp attribute mask", "a number (0x12d81) or names joined by |"},
}};

std::string upper(std::string_view s)
{
    std::string u(s);
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
    return u;
}

// "12", "0x1f": a whole number; nullopt for anything else.
std::optional<std::int64_t> number_of(std::string_view s)
{
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

Explanation start(std::string_view topic, std::string_view input)
{
    Explanation e;
    e.topic = topic;
    e.input = input;
    return e;
}

[[noreturn]] void out_of_range(std::string_view topic, std::string_view value)
{
    const auto it = std::find_if(topic_table.begin(), topic_table.end(),
                                 [&](const TopicInfo& t) { return t.name == topic; });
    throw UsageError(fmt::format("{} '{}': not a known value; valid: {}", topic, value, it->valid));
}

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
    std::string u = upper(value);
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

Explanation wc_status(std::string_view value)
{
    Explanation e = named<decode::WcStatusEntry>("wc-status", value, decode::wc_status_table, "IBV_WC_");
    e.facts.push_back({"meaning", "meaning", std::string(decode::wc_status_meaning(static_cast<int>(e.raw)))});
    return e;
}

Explanation mtu(std::string_view value)
{
    const auto n = number_of(value);
    if (!n)
        out_of_range("mtu", value);
    std::optional<int> code;
    if (*n >= 1 && *n <= 5)
        code = static_cast<int>(*n);
    else if (const auto m = decode::mtu_from_bytes(static_cast<std::uint64_t>(*n)))
        code = *m;
    if (!code)
        out_of_range("mtu", value);
    Explanation e = start("mtu", value);
    e.raw = *code;
    e.name = fmt::format("{} bytes", 128 << *code);
    e.facts.push_back({"enum", "ibv_mtu", fmt::format("IBV_MTU_{} = {}", 128 << *code, *code)});
    return e;
}

Explanation timer(std::string_view topic, std::string_view value, const Context& c)
{
    const bool ack = topic == "timeout";
    const decode::ParsedCode p = ack ? decode::parse_timeout(value) : decode::parse_rnr_timer(value);
    if (!p.ok)
        throw UsageError(fmt::format("{} '{}': {}", topic, value, p.error));
    Explanation e = start(topic, value);
    e.raw = p.code;
    const auto d = ack ? decode::local_ack_timeout(p.code) : decode::rnr_timer(p.code);
    e.name = d.value ? decode::human_duration_us(ack ? *d.value : *d.value * 1000) : *d.name;
    if (p.from_duration)
        e.facts.push_back({"nearest_code", "nearest code", p.summary});
    if (ack) {
        e.facts.push_back({"formula", "formula", p.code == 0 ? "code 0 disables the timer: the sender waits forever"
                                                             : fmt::format("4.096 µs × 2^{}", p.code)});
        if (c.retry_cnt) {
            const auto wait = decode::retry_exceeded_wait_us(p.code, *c.retry_cnt);
            e.facts.push_back({"retry_exceeded_after", "retry exceeded after",
                               wait ? fmt::format("{} ({} attempts × the timeout; nominal, a lower bound)",
                                                  decode::human_duration_us(*wait), *c.retry_cnt + 1)
                                    : "never: the timer is off"});
        }
    } else if (c.rnr_retry) {
        const auto wait = decode::rnr_exceeded_wait_ms(p.code, *c.rnr_retry);
        e.facts.push_back({"rnr_retry_exceeded_after", "RNR retry exceeded after",
                           wait ? decode::human_duration_us(*wait * 1000) : "never: rnr-retry 7 retries forever"});
    }
    return e;
}

Explanation retries(std::string_view topic, std::string_view value)
{
    const auto n = number_of(value);
    if (!n || *n < 0 || *n > 7)
        out_of_range(topic, value);
    Explanation e = start(topic, value);
    e.raw = *n;
    if (topic == "rnr-retry" && *n == 7) {
        e.name = "infinite";
        e.facts.push_back({"meaning", "meaning", "7 retries forever on RNR NAKs (IBA 9.7.5.2.8)"});
    } else {
        e.name = fmt::format("{} retr{}", *n, *n == 1 ? "y" : "ies");
        e.facts.push_back({"meaning", "meaning",
                           topic == "retry-cnt"
                               ? fmt::format("{} attempts in all before IBV_WC_RETRY_EXC_ERR (7 is 7 retries, "
                                             "not infinite, in the spec; rxe retries forever at 7)",
                                             *n + 1)
                               : fmt::format("{} attempts in all before IBV_WC_RNR_RETRY_EXC_ERR", *n + 1)});
    }
    return e;
}

Explanation attr_mask(std::string_view value)
{
    std::uint64_t raw = 0;
    if (const auto n = number_of(value)) {
        if (*n < 0)
            out_of_range("qp-attr-mask", value);
        raw = static_cast<std::uint64_t>(*n);
    } else {
        // "IBV_QP_STATE|IBV_QP_PORT" or "STATE|PORT"
        std::string_view rest = value;
        while (!rest.empty()) {
            const auto bar = rest.find('|');
            std::string word = upper(rest.substr(0, bar));
            rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
            word.erase(std::remove(word.begin(), word.end(), ' '), word.end());
            if (word.rfind("IBV_QP_", 0) == 0)
                word.erase(0, 7);
            std::vector<std::string> names;
            bool found = false;
            for (const auto& f : decode::qp_attr_mask_table) {
                names.emplace_back(f.name);
                if (f.name == word) {
                    raw |= f.bit;
                    found = true;
                }
            }
            if (!found)
                throw UsageError(util::unknown_name_message("qp-attr-mask bit", word, names, "bits are"));
        }
    }
    const decode::Flags flags = decode::qp_attr_mask(raw);
    Explanation e = start("qp-attr-mask", value);
    e.raw = static_cast<std::int64_t>(raw);
    e.names = flags.names;
    e.unknown_bits = flags.unknown;
    std::vector<std::string> shown;
    for (const auto& n : flags.names)
        shown.push_back("IBV_QP_" + n);
    if (flags.unknown)
        shown.push_back(fmt::format("{:#x} (unknown bits)", flags.unknown));
    e.name = shown.empty() ? "none" : fmt::format("{}", fmt::join(shown, " | "));
    e.facts.push_back({"hex", "hex", fmt::format("{:#x}", raw)});
    std::vector<std::string> options;
    for (const auto& o : decode::qp_attr_options(static_cast<std::uint32_t>(raw)))
        options.push_back(o);
    if (!options.empty())
        e.facts.push_back({"qp_modify_options", "qp modify options", fmt::format("{}", fmt::join(options, ", "))});
    return e;
}

}  // namespace

std::span<const TopicInfo> topics() { return topic_table; }

Explanation explain(std::string_view topic, std::string_view value, const Context& context)
{
    if (topic == "wc-status")
        return wc_status(value);
    if (topic == "wc-opcode")
        return named<decode::EnumEntry<int>>(topic, value, decode::wc_opcode_table, "IBV_WC_");
    if (topic == "qp-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::qp_state_table, "IBV_QPS_");
    if (topic == "port-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::port_state_table, "IBV_PORT_");
    if (topic == "phys-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::phys_state_table, "");
    if (topic == "mtu")
        return mtu(value);
    if (topic == "width") {
        Explanation e = named<decode::WidthEntry>(topic, value, decode::width_table, "");
        e.facts.push_back({"lanes", "lanes", std::to_string(decode::find_entry(decode::width_table, e.raw)->lanes)});
        return e;
    }
    if (topic == "speed") {
        Explanation e = named<decode::SpeedEntry>(topic, value, decode::speed_table, "");
        const auto* s = decode::find_entry(decode::speed_table, e.raw);
        e.facts.push_back({"lane_gbps", "per lane", fmt::format("{:g} Gb/s signalling, {:.4g} Gb/s of data",
                                                               s->lane_gbps, s->lane_data_gbps)});
        return e;
    }
    if (topic == "timeout" || topic == "rnr-timer")
        return timer(topic, value, context);
    if (topic == "retry-cnt" || topic == "rnr-retry")
        return retries(topic, value);
    if (topic == "qp-attr-mask")
        return attr_mask(value);
    std::vector<std::string> names;
    for (const auto& t : topic_table)
        names.emplace_back(t.name);
    throw UsageError(util::unknown_name_message("topic", topic, names, "topics are"));
}

}  // namespace qps::explain
