#include "src/decode/qp.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "src/decode/port.hpp"
#include "src/util/text.hpp"

namespace qps::decode {

using util::trim;
using util::lower;
using util::join;

namespace {

// A named value without a quantity, in a quantity's unit ("infinite").
Decoded named_in_unit(std::int64_t raw, std::string name, std::string_view unit)
{
    Decoded d = Decoded::named(raw, std::move(name));
    d.unit = unit;
    return d;
}

// ASCII lower case, '-' as '_'; other bytes (UTF-8 'µ') unchanged.
std::string fold(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        else if (c == '-')
            c = '_';
    }
    return out;
}

// "3 decimals, trailing zeros dropped": 67.108864 -> "67.109", 655.36 -> "655.36".
std::string short_number(double v)
{
    std::string s = fmt::format("{:.3f}", v);
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

// ---- timer parsing

struct Duration {
    bool ok = false;
    bool is_code = false;  // a bare integer
    bool infinite = false;
    long code = 0;
    double us = 0;
};

// Splits "67ms", "0.5 s", "14", "infinite"; ok = false for anything else.
Duration read_duration(std::string_view text)
{
    Duration d;
    const std::string s = lower(trim(text));
    if (s == "infinite" || s == "infinity" || s == "inf") {
        d.ok = d.infinite = true;
        return d;
    }
    std::size_t n = 0;
    while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.'))
        ++n;
    if (n == 0)
        return d;
    const std::string_view number(s.data(), n);
    const std::string_view unit = trim(std::string_view(s).substr(n));
    if (unit.empty()) {
        if (number.find('.') != std::string_view::npos)
            return d;
        const auto r = std::from_chars(number.data(), number.data() + number.size(), d.code);
        if (r.ec == std::errc::result_out_of_range)
            d.code = std::numeric_limits<long>::max();  // reported as out of range
        else if (r.ec != std::errc() || r.ptr != number.data() + number.size())
            return d;
        d.ok = d.is_code = true;
        return d;
    }
    double v = 0;
    const auto r = std::from_chars(number.data(), number.data() + number.size(), v);
    if (r.ec != std::errc() || r.ptr != number.data() + number.size())
        return d;
    double scale = 0;  // to µs
    if (unit == "ns")
        scale = 1e-3;
    else if (unit == "us" || unit == "\xc2\xb5s" /* µ micro sign */ || unit == "\xce\xbcs" /* μ mu */)
        scale = 1;
    else if (unit == "ms")
        scale = 1e3;
    else if (unit == "s")
        scale = 1e6;
    else
        return d;
    d.ok = true;
    d.us = v * scale;
    return d;
}

// The code whose value (µs) is nearest to `us`; ties go to the longer value.
template <class ValueOf>
int nearest_code(double us, int first, int last, ValueOf value_us)
{
    int best = first;
    double best_diff = std::numeric_limits<double>::infinity();
    for (int c = first; c <= last; ++c) {
        const double v = value_us(c);
        const double diff = std::abs(v - us);
        if (diff < best_diff || (diff == best_diff && v > value_us(best))) {
            best = c;
            best_diff = diff;
        }
    }
    return best;
}

}  // namespace

// ---------------------------------------------------------------- enumerations

Decoded qp_state(int raw) { return decode_enum<int>(qp_state_table, raw); }
Decoded qp_type(int raw) { return decode_enum<int>(qp_type_table, raw); }

std::string qp_type_word(int type)
{
    std::string word = lower(lookup<int>(qp_type_table, type).value_or(""));
    std::replace(word.begin(), word.end(), '_', '-');
    return word;
}

namespace {

// The type among `types` whose word (`word_of`) is `word`, any case.
template <std::size_t N>
std::optional<ibv_qp_type> type_of_word(const std::array<ibv_qp_type, N>& types, std::string (*word_of)(int),
                                        std::string_view word)
{
    const std::string folded = lower(word);
    for (const ibv_qp_type t : types)
        if (word_of(t) == folded)
            return t;
    return std::nullopt;
}

template <std::size_t N>
std::vector<std::string> words_of(const std::array<ibv_qp_type, N>& types, std::string (*word_of)(int))
{
    std::vector<std::string> out;
    for (const ibv_qp_type t : types)
        out.push_back(word_of(t));
    return out;
}

}  // namespace

std::optional<ibv_qp_type> created_qp_type(std::string_view word)
{
    return type_of_word(created_qp_types, qp_type_word, word);
}
std::vector<std::string> created_qp_type_words() { return words_of(created_qp_types, qp_type_word); }

std::string link_qp_type_word(int type) { return type == IBV_QPT_XRC_SEND ? "xrc" : qp_type_word(type); }
std::optional<ibv_qp_type> link_qp_type(std::string_view word)
{
    return type_of_word(link_qp_types, link_qp_type_word, word);
}
std::vector<std::string> link_qp_type_words() { return words_of(link_qp_types, link_qp_type_word); }

Decoded kernel_qp_type(int raw)
{
    return lookup<int>(special_qp_type_table, raw) ? decode_enum<int>(special_qp_type_table, raw) : qp_type(raw);
}
Decoded mig_state(int raw) { return decode_enum<int>(mig_state_table, raw); }

// ---------------------------------------------------------------- access flags

Flags access_flags(std::uint64_t raw) { return decode_flags(access_flags_table, raw); }

Parsed parse_access(std::string_view comma_list)
{
    Parsed p;
    const std::string_view all = trim(comma_list);
    if (all.empty() || fold(all) == "none") {
        p.ok = true;
        return p;
    }
    std::uint32_t mask = 0;
    std::string_view rest = all;
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view word = trim(rest.substr(0, comma));
        const std::string folded = fold(word);
        const auto* e = std::find_if(access_flags_table.begin(), access_flags_table.end(),
                                     [&](const FlagEntry& f) { return fold(f.name) == folded; });
        if (e == access_flags_table.end()) {
            std::vector<std::string> names;
            for (const auto& f : access_flags_table)
                names.push_back(lower(f.name));
            p.error = word.empty()
                          ? fmt::format("empty access flag in '{}'; valid: {}", all, join(names, ", "))
                          : fmt::format("unknown access flag '{}'; valid: {}", word, join(names, ", "));
            return p;
        }
        mask |= static_cast<std::uint32_t>(e->bit);
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    p.ok = true;
    p.value = mask;
    return p;
}

// ---------------------------------------------------------------- attr mask

Flags qp_attr_mask(std::uint64_t raw) { return decode_flags(qp_attr_mask_table, raw); }

std::optional<std::string_view> qp_attr_option(std::uint32_t bit)
{
    for (const auto& e : qp_attr_table)
        if (e.bit == bit)
            return e.option;
    return std::nullopt;
}

std::vector<std::string> qp_attr_options(std::uint32_t mask)
{
    std::vector<std::string> out;
    std::uint32_t left = mask;
    for (const auto& e : qp_attr_table) {
        if (mask & e.bit) {
            out.emplace_back(e.option);
            left &= ~e.bit;
        }
    }
    if (left)
        out.push_back(fmt::format("0x{:x}", left));
    return out;
}

// ---------------------------------------------------------------- path MTU

Decoded path_mtu(int raw) { return mtu(raw); }

Parsed parse_mtu_bytes(std::string_view bytes)
{
    Parsed p;
    const std::string_view s = trim(bytes);
    for (const auto& e : mtu_table) {
        if (s == e.name) {
            p.ok = true;
            p.value = static_cast<std::uint32_t>(e.value);
            return p;
        }
    }
    p.error = fmt::format("MTU '{}' is not a path MTU; valid: 256, 512, 1024, 2048, 4096 (bytes)", s);
    return p;
}

// ---------------------------------------------------------------- RC timers

std::optional<double> ack_timeout_us(int code)
{
    if (code <= 0 || code > max_timer_code)
        return std::nullopt;
    return ack_timeout_unit_us * std::ldexp(1.0, code);
}

Decoded local_ack_timeout(int code)
{
    if (code == 0)
        return named_in_unit(code, "infinite", "us");
    if (auto us = ack_timeout_us(code))
        return Decoded::quantity(code, std::nullopt, "us", *us);
    return unknown_value(code, "us");
}

Decoded rnr_timer(int code)
{
    if (code < 0 || code > max_timer_code)
        return unknown_value(code, "ms");
    return Decoded::quantity(code, std::nullopt, "ms", rnr_timer_table[code].ms);
}

Decoded retry_cnt(int raw)
{
    if (raw < 0 || raw > 7)
        return unknown_value(raw, "retries");
    return Decoded::count(raw, std::nullopt, "retries", raw);
}

Decoded rnr_retry(int raw)
{
    if (raw == 7)
        return named_in_unit(raw, "infinite", "retries");
    if (raw < 0 || raw > 7)
        return unknown_value(raw, "retries");
    return Decoded::count(raw, std::nullopt, "retries", raw);
}

std::optional<double> retry_exceeded_wait_us(int timeout_code, int retry_cnt)
{
    if (retry_cnt < 0 || retry_cnt > 7)
        return std::nullopt;
    const auto t = ack_timeout_us(timeout_code);
    if (!t)
        return std::nullopt;
    return *t * (retry_cnt + 1);
}

std::optional<double> rnr_exceeded_wait_ms(int rnr_timer_code, int rnr_retry)
{
    if (rnr_retry < 0 || rnr_retry >= 7 || rnr_timer_code < 0 || rnr_timer_code > max_timer_code)
        return std::nullopt;
    return rnr_timer_table[rnr_timer_code].ms * rnr_retry;
}

std::string human_duration_us(double us)
{
    if (std::isinf(us))
        return "infinite";
    const double a = std::abs(us);
    if (a < 1)
        return short_number(us * 1e3) + " ns";
    if (a < 1e3)
        return short_number(us) + " µs";
    if (a < 1e6)
        return short_number(us / 1e3) + " ms";
    return short_number(us / 1e6) + " s";
}

ParsedCode parse_timeout(std::string_view text)
{
    ParsedCode p;
    p.unit = "us";
    const std::string_view shown = trim(text);
    const Duration d = read_duration(text);
    const double shortest = *ack_timeout_us(1);
    const double longest = *ack_timeout_us(max_timer_code);
    if (!d.ok) {
        p.error = fmt::format("timeout '{}' is neither a code (0-31) nor a duration "
                              "(e.g. 67ms, 0.5s, infinite)",
                              shown);
        return p;
    }
    if (d.infinite || (d.is_code && d.code == 0)) {
        p.ok = true;
        p.code = 0;
        p.exact = std::numeric_limits<double>::infinity();
        p.summary = d.infinite ? fmt::format("{} → code 0 (infinite)", shown) : "code 0 (infinite)";
        return p;
    }
    if (d.is_code) {
        if (d.code < 0 || d.code > max_timer_code) {
            p.error = fmt::format("timeout code {} is out of range: codes are 0-31 "
                                  "(0 = infinite, t = 4.096 µs × 2^t)",
                                  shown);
            return p;
        }
        p.ok = true;
        p.code = static_cast<std::uint8_t>(d.code);
        p.exact = *ack_timeout_us(d.code);
        p.summary = fmt::format("code {} ({})", d.code, human_duration_us(p.exact));
        return p;
    }
    if (!(d.us >= shortest / 2 && d.us <= longest * 2)) {
        p.error = fmt::format("timeout {} is out of range: durations from {} to {}, "
                              "a code 0-31, or infinite",
                              shown, human_duration_us(shortest), human_duration_us(longest));
        return p;
    }
    const int c = nearest_code(d.us, 1, max_timer_code, [](int code) { return *ack_timeout_us(code); });
    p.ok = true;
    p.from_duration = true;
    p.code = static_cast<std::uint8_t>(c);
    p.exact = *ack_timeout_us(c);
    p.summary = fmt::format("{} → code {} ({})", shown, c, human_duration_us(p.exact));
    return p;
}

ParsedCode parse_rnr_timer(std::string_view text)
{
    ParsedCode p;
    p.unit = "ms";
    const std::string_view shown = trim(text);
    const Duration d = read_duration(text);
    const double shortest_ms = rnr_timer_table[1].ms;
    const double longest_ms = rnr_timer_table[0].ms;
    if (!d.ok) {
        p.error = fmt::format("RNR timer '{}' is neither a code (0-31) nor a duration "
                              "(e.g. 1.28ms, 10us)",
                              shown);
        return p;
    }
    if (d.infinite) {
        p.error = fmt::format("RNR timer '{}': there is no infinite RNR timer (0.01 ms to 655.36 ms, "
                              "codes 0-31); to retry forever set rnr-retry 7",
                              shown);
        return p;
    }
    if (d.is_code) {
        if (d.code < 0 || d.code > max_timer_code) {
            p.error = fmt::format("RNR timer code {} is out of range: codes are 0-31 "
                                  "(1 = 0.01 ms ... 31 = 491.52 ms, 0 = 655.36 ms)",
                                  shown);
            return p;
        }
        p.ok = true;
        p.code = static_cast<std::uint8_t>(d.code);
        p.exact = rnr_timer_table[d.code].ms;
        p.summary = fmt::format("code {} ({})", d.code, human_duration_us(p.exact * 1e3));
        return p;
    }
    const double ms = d.us / 1e3;
    if (!(ms >= shortest_ms / 2 && ms <= longest_ms * 2)) {
        p.error = fmt::format("RNR timer {} is out of range: durations from 0.01 ms to 655.36 ms, "
                              "or a code 0-31",
                              shown);
        return p;
    }
    const int c = nearest_code(d.us, 0, max_timer_code,
                               [](int code) { return rnr_timer_table[code].ms * 1e3; });
    p.ok = true;
    p.from_duration = true;
    p.code = static_cast<std::uint8_t>(c);
    p.exact = rnr_timer_table[c].ms;
    p.summary = fmt::format("{} → code {} ({})", shown, c, human_duration_us(p.exact * 1e3));
    return p;
}

// ---------------------------------------------------------------- static rate

Decoded static_rate(int raw)
{
    const auto* e = find_entry(static_rate_table, raw);
    if (!e)
        return unknown_value(raw, "gbps");
    if (raw == IBV_RATE_MAX)
        return named_in_unit(raw, std::string(e->name), "gbps");
    return Decoded::quantity(raw, std::nullopt, "gbps", e->gbps);
}

std::optional<int> static_rate_mbps(int raw)
{
    const auto* e = find_entry(static_rate_table, raw);
    if (!e || raw == IBV_RATE_MAX)
        return std::nullopt;
    return e->mbps;
}

// ---------------------------------------------------------------- completions

Decoded wc_status(int raw)
{
    const auto* e = find_entry(wc_status_table, raw);
    if (!e)
        return unknown_value(raw, {});
    return Decoded::named(raw, std::string(e->name));
}

std::string_view wc_status_meaning(int raw)
{
    const auto* e = find_entry(wc_status_table, raw);
    return e ? e->meaning : std::string_view("unknown status");
}

std::vector<std::string> wc_status_checks(int raw)
{
    for (const auto& a : wc_status_checks_table)
        if (a.status == raw)
            return split_checks(a.checks);
    return {};
}

Decoded wc_opcode(int raw) { return decode_enum<int>(wc_opcode_table, raw); }
Decoded wr_opcode(int raw) { return decode_enum<int>(wr_opcode_table, raw); }

}  // namespace qps::decode
