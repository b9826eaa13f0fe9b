#include "src/util/outside_bytes.hpp"

#include <cstdint>
#include <cstring>

namespace qps::util {

namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD";  // U+FFFD

// The range the second byte of a sequence may have after `lead` (Unicode
// Table 3-7: this is what excludes overlong forms, surrogates and code
// points above U+10FFFF); the later bytes are always 80..BF.
struct Lead {
    std::size_t length;  // 0: not a lead byte
    unsigned char second_min, second_max;
};

constexpr Lead lead_of(unsigned char b)
{
    if (b < 0x80)
        return {1, 0, 0};
    if (b >= 0xC2 && b <= 0xDF)
        return {2, 0x80, 0xBF};
    if (b == 0xE0)
        return {3, 0xA0, 0xBF};
    if (b == 0xED)
        return {3, 0x80, 0x9F};
    if (b >= 0xE1 && b <= 0xEF)
        return {3, 0x80, 0xBF};
    if (b == 0xF0)
        return {4, 0x90, 0xBF};
    if (b == 0xF4)
        return {4, 0x80, 0x8F};
    if (b >= 0xF1 && b <= 0xF3)
        return {4, 0x80, 0xBF};
    return {0, 0, 0};  // 80..C1 (a continuation, or an overlong lead), F5..FF
}

constexpr std::string_view named_escape(unsigned char c)
{
    switch (c) {
    case 0x07: return "\\a";
    case 0x08: return "\\b";
    case 0x09: return "\\t";
    case 0x0A: return "\\n";
    case 0x0B: return "\\v";
    case 0x0C: return "\\f";
    case 0x0D: return "\\r";
    case 0x1B: return "\\e";
    default: return {};
    }
}

constexpr char hex_digits[] = "0123456789abcdef";

void append_hex_escape(std::string& out, unsigned char c)
{
    out += "\\x";
    out += hex_digits[c >> 4];
    out += hex_digits[c & 0xF];
}

// A well-formed sequence that is a control character: C0, DEL, or C1
// (U+0080..U+009F, encoded C2 80..C2 9F).
bool is_control(std::string_view seq)
{
    const auto b0 = static_cast<unsigned char>(seq[0]);
    if (seq.size() == 1)
        return b0 < 0x20 || b0 == 0x7F;
    return seq.size() == 2 && b0 == 0xC2 && static_cast<unsigned char>(seq[1]) <= 0x9F;
}

// The length of the run of printable ASCII (20..7E) `bytes` starts with:
// each such byte is a valid step of its own and no control character, so
// the run is taken as it is (most of any log is).
std::size_t printable_ascii_run(std::string_view bytes)
{
    std::size_t n = 0;
    while (n < bytes.size() && static_cast<unsigned char>(bytes[n]) - 0x20u < 0x5Fu)
        ++n;
    return n;
}

// Whether every byte is printable ASCII (0x20..0x7E), eight bytes at a time: a
// byte below 0x20 borrows into its top bit after - 0x20 (where it had none),
// one above 0x7E has its top bit set after + 1 or before.
bool all_printable_ascii(std::string_view bytes)
{
    constexpr std::uint64_t ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
    std::uint64_t outside = 0;
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t x;
        std::memcpy(&x, bytes.data() + i, sizeof x);
        outside |= ((x - ones * 0x20) & ~x) | (x + ones) | x;
    }
    for (; i < bytes.size(); ++i)
        outside |= static_cast<unsigned char>(bytes[i]) - 0x20u >= 0x5Fu ? tops : 0;
    return (outside & tops) == 0;
}

}  // namespace

Utf8Step utf8_step(std::string_view bytes)
{
    if (bytes.empty())
        return {0, true};
    const Lead lead = lead_of(static_cast<unsigned char>(bytes[0]));
    if (lead.length == 0)
        return {1, false};
    for (std::size_t i = 1; i < lead.length; ++i) {
        if (i >= bytes.size())
            return {i, false};  // truncated: the subpart so far
        const auto b = static_cast<unsigned char>(bytes[i]);
        const unsigned char lo = i == 1 ? lead.second_min : 0x80;
        const unsigned char hi = i == 1 ? lead.second_max : 0xBF;
        if (b < lo || b > hi)
            return {i, false};  // the byte at i starts the next step
    }
    return {lead.length, true};
}

namespace {

// Calls f(sequence, valid) for each step of decoding `bytes` (a run of
// printable ASCII as one), in order; stops
// early when f returns false.
template <class F>
void for_each_step(std::string_view bytes, F&& f)
{
    while (!bytes.empty()) {
        if (const std::size_t plain = printable_ascii_run(bytes); plain > 1) {
            // A run of printable ASCII: valid, one byte a step, handed over as one.
            if (!f(bytes.substr(0, plain), true))
                return;
            bytes.remove_prefix(plain);
            continue;
        }
        const Utf8Step s = utf8_step(bytes);
        if (!f(bytes.substr(0, s.length), s.valid))
            return;
        bytes.remove_prefix(s.length);
    }
}

}  // namespace

bool is_utf8(std::string_view bytes)
{
    // ASCII is UTF-8: no top bit set, looked at eight bytes at a time.
    std::uint64_t tops = 0;
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t x;
        std::memcpy(&x, bytes.data() + i, sizeof x);
        tops |= x;
    }
    for (; i < bytes.size(); ++i)
        tops |= static_cast<unsigned char>(bytes[i]);
    if ((tops & 0x8080808080808080ULL) == 0)
        return true;
    bool valid = true;
    for_each_step(bytes, [&](std::string_view, bool ok) { return valid = ok; });
    return valid;
}

std::string to_utf8(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for_each_step(bytes, [&](std::string_view seq, bool valid) {
        out.append(valid ? seq : replacement_character);
        return true;
    });
    return out;
}

void append_escaped(std::string& out, std::string_view bytes)
{
    if (all_printable_ascii(bytes)) {  // most text: nothing to escape
        out.append(bytes);
        return;
    }
    for_each_step(bytes, [&](std::string_view seq, bool valid) {
        const std::string_view name = named_escape(static_cast<unsigned char>(seq[0]));
        if (valid && !is_control(seq))
            out.append(seq);
        else if (valid && !name.empty())
            out.append(name);
        else
            for (const char c : seq)
                append_hex_escape(out, static_cast<unsigned char>(c));
        return true;
    });
}

std::string escape_text(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    append_escaped(out, bytes);
    return out;
}

std::string hex_bytes(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        out += hex_digits[c >> 4];
        out += hex_digits[c & 0xF];
    }
    return out;
}

}  // namespace qps::util
