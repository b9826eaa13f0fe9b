// Generic table-driven decoding: value -> name, bit -> name, with units.
// Every specific table (port, device, gid, ...) is a constexpr array of
// entries and is decoded by the helpers here, so unknown values are handled
// the same way everywhere: kept, shown as hex, never dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qps::decode {

template <class T>
struct EnumEntry {
    T value;
    std::string_view name;
};

struct FlagEntry {
    std::uint64_t bit;
    std::string_view name;
};

// A decoded scalar. `name` is set for enumerations, `unit`/`value` for
// quantities; both may be set (e.g. speed "EDR", 25.78125 Gb/s).
// JSON renders it as {"raw": r, "name": n, "<unit>": v}; v is a JSON
// integer when the quantity is whole by nature (`count`: bytes, lanes,
// retries), a number otherwise.
struct Decoded {
    std::int64_t raw = 0;
    std::optional<std::string> name;
    std::string_view unit;  // JSON key of the value, e.g. "bytes", "gbps"
    std::optional<double> value;
    bool known = true;      // false when raw has no entry in the table
    bool whole = false;     // value is a whole number by nature (a count, bytes)

    static Decoded named(std::int64_t raw, std::string name)
    {
        Decoded d;
        d.raw = raw;
        d.name = std::move(name);
        return d;
    }
    static Decoded quantity(std::int64_t raw, std::optional<std::string> name, std::string_view unit,
                            double value)
    {
        Decoded d;
        d.raw = raw;
        d.name = std::move(name);
        d.unit = unit;
        d.value = value;
        return d;
    }
    // A quantity that is a whole number by nature (bytes, lanes, retries).
    static Decoded count(std::int64_t raw, std::optional<std::string> name, std::string_view unit,
                         std::int64_t value)
    {
        Decoded d = quantity(raw, std::move(name), unit, static_cast<double>(value));
        d.whole = true;
        return d;
    }
};

// A decoded bit mask: named bits in table order, unknown bits kept.
struct Flags {
    std::uint64_t raw = 0;
    std::vector<std::string> names;
    std::uint64_t unknown = 0;
};

// "UNKNOWN(0x2a)" style text for a raw value without a name.
std::string unknown_name(std::int64_t raw);

// The items of a ';'-separated list of checks (how the tables hold them).
std::vector<std::string> split_checks(std::string_view list);

template <class T>
constexpr std::optional<std::string_view> lookup(std::span<const EnumEntry<T>> table, T value)
{
    for (const auto& e : table)
        if (e.value == value)
            return e.name;
    return std::nullopt;
}

// The value whose name is `name`, if any (the reverse of lookup).
template <class T>
constexpr std::optional<T> value_named(std::span<const EnumEntry<T>> table, std::string_view name)
{
    for (const auto& e : table)
        if (e.name == name)
            return e.value;
    return std::nullopt;
}

// Every name of a table, in its order: the words an option accepts.
template <class T>
std::vector<std::string> names_of(std::span<const EnumEntry<T>> table)
{
    std::vector<std::string> out;
    for (const auto& e : table)
        out.emplace_back(e.name);
    return out;
}

template <class T>
Decoded decode_enum(std::span<const EnumEntry<T>> table, T value)
{
    Decoded d;
    d.raw = static_cast<std::int64_t>(value);
    if (auto n = lookup(table, value)) {
        d.name = std::string(*n);
    } else {
        d.name = unknown_name(d.raw);
        d.known = false;
    }
    return d;
}

Flags decode_flags(std::span<const FlagEntry> table, std::uint64_t raw);

// The entry of a table of structs with a `value` member, or nullptr; for
// tables that carry more than a name (units, lane counts, meanings).
template <class Table>
constexpr auto find_entry(const Table& table, std::int64_t raw) -> const typename Table::value_type*
{
    for (const auto& e : table)
        if (e.value == raw)
            return &e;
    return nullptr;
}

// A raw value without a table entry, in the unit its known values carry.
Decoded unknown_value(std::int64_t raw, std::string_view unit);

// The OR of all bits a flag table names; used by static_asserts that a
// table covers every bit its library enum defines.
constexpr std::uint64_t named_bits(std::span<const FlagEntry> table)
{
    std::uint64_t m = 0;
    for (const auto& e : table)
        m |= e.bit;
    return m;
}

// True when no two entries of a table share a value (checked at compile time).
template <class T>
constexpr bool values_unique(std::span<const EnumEntry<T>> table)
{
    for (std::size_t i = 0; i < table.size(); ++i)
        for (std::size_t j = i + 1; j < table.size(); ++j)
            if (table[i].value == table[j].value)
                return false;
    return true;
}

constexpr bool bits_single_and_unique(std::span<const FlagEntry> table)
{
    std::uint64_t seen = 0;
    for (const auto& e : table) {
        if (e.bit == 0 || (e.bit & (e.bit - 1)) != 0 || (seen & e.bit))
            return false;
        seen |= e.bit;
    }
    return true;
}

// An identifier or key shown in hex: {raw: v, name: "0x..."}, at least
// `digits` hex digits (qkey 0xffff, pkey 0xffff, rkey, QPN 0x11).
Decoded hex_number(std::uint64_t v, int digits = 1);

// 64-bit GUID (as the library returns it, network byte order) as
// "xxxx:xxxx:xxxx:xxxx".
std::string format_guid(std::uint64_t be_guid);

}  // namespace qps::decode
