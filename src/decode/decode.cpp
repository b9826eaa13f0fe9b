#include "src/decode/decode.hpp"

#include <charconv>
#include <endian.h>
#include <fmt/format.h>

namespace qps::decode {

std::vector<std::string> split_checks(std::string_view list)
{
    std::vector<std::string> out;
    while (!list.empty()) {
        const auto semi = list.find(';');
        out.emplace_back(list.substr(0, semi));
        list = semi == std::string_view::npos ? std::string_view() : list.substr(semi + 1);
    }
    return out;
}

std::string unknown_name(std::int64_t raw)
{
    if (raw < 0)
        return fmt::format("UNKNOWN({})", raw);
    return fmt::format("UNKNOWN(0x{:x})", raw);
}

Decoded unknown_value(std::int64_t raw, std::string_view unit)
{
    Decoded d;
    d.raw = raw;
    d.name = unknown_name(raw);
    d.unit = unit;
    d.known = false;
    return d;
}

Flags decode_flags(std::span<const FlagEntry> table, std::uint64_t raw)
{
    Flags f;
    f.raw = raw;
    std::uint64_t left = raw;
    for (const auto& e : table) {
        if (raw & e.bit) {
            f.names.emplace_back(e.name);
            left &= ~e.bit;
        }
    }
    f.unknown = left;
    return f;
}

Decoded hex_number(std::uint64_t v, int digits)
{
    // "0x{:0{}x}" without fmt's parse: QPNs are made a table row at a time.
    char hex[16];
    const auto end = std::to_chars(hex, hex + sizeof hex, v, 16).ptr;
    const auto n = static_cast<int>(end - hex);
    std::string s = "0x";
    if (digits > n)
        s.append(static_cast<std::size_t>(digits - n), '0');
    s.append(hex, end);
    return Decoded::named(static_cast<std::int64_t>(v), std::move(s));
}

std::string format_guid(std::uint64_t be_guid)
{
    const std::uint64_t g = be64toh(be_guid);
    return fmt::format("{:04x}:{:04x}:{:04x}:{:04x}", (g >> 48) & 0xffff, (g >> 32) & 0xffff,
                       (g >> 16) & 0xffff, g & 0xffff);
}

}  // namespace qps::decode
