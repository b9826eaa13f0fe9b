#include "formatters/printer.hpp"

#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

// How text shows the unit of a Decoded value; units not listed are not shown
// in text when the value also has a name (e.g. width "4X" hides "4 lanes").
struct UnitText {
    std::string_view key;
    std::string_view text;
};
constexpr std::array<UnitText, 7> unit_texts{{
    {"bytes", "bytes"},
    {"gbps", "Gb/s"},
    {"lane_gbps", "Gb/s per lane"},
    {"us", "µs"},
    {"ms", "ms"},
    {"kbps", "kb/s"},
    {"retries", "retries"},
}};

// A duration with a name already says it in words ("67.109 ms").
bool is_time_unit(std::string_view unit) { return unit == "us" || unit == "ms"; }

std::string_view unit_text(std::string_view key)
{
    for (const auto& u : unit_texts)
        if (u.key == key)
            return u.text;
    return {};
}

std::string number(double v)
{
    std::string s = fmt::format("{:.6f}", v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.')
        s.pop_back();
    return s;
}

// The part of a Decoded value's text that a unit adds ("4 lanes"), or "".
std::string decoded_unit_part(const decode::Decoded& d)
{
    const std::string_view unit = unit_text(d.unit);
    if (d.value && !unit.empty() && d.known && !(d.name && is_time_unit(d.unit)))
        return fmt::format("{}{} {}", d.name && !d.name->empty() ? ", " : "", number(*d.value), unit);
    return {};
}

std::string decoded_text(const decode::Decoded& d)
{
    return fmt::format("{}{} ({})", d.name ? *d.name : std::string(), decoded_unit_part(d), d.raw);
}

std::string flags_text(const decode::Flags& f)
{
    std::vector<std::string> parts(f.names.begin(), f.names.end());
    if (f.unknown)
        parts.push_back(fmt::format("unknown 0x{:x}", f.unknown));
    if (parts.empty())
        return fmt::format("none (0x{:x})", f.raw);
    return fmt::format("{} (0x{:x})", fmt::join(parts, ", "), f.raw);
}

struct TextVisitor {
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(std::nullptr_t) const { return "-"; }
    std::string operator()(bool b) const { return b ? "yes" : "no"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return number(v); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const decode::Decoded& d) const { return decoded_text(d); }
    std::string operator()(const decode::Flags& f) const { return flags_text(f); }
    std::string operator()(const Nanoseconds& t) const { return fmt::format("{:.3f}", t.ns / 1000.0); }
    std::string operator()(const Scaled& v) const { return fmt::format("{:.{}f}", v.raw / v.unit, v.decimals); }
    std::string operator()(const OutsideBytes& b) const { return b.bytes; }
};

}  // namespace

std::string to_text(const Value& value) { return std::visit(TextVisitor{}, value); }

void append_shown(std::string& out, const Value& value)
{
    // The values of a long table's cells without a string of their own;
    // the rest through to_text(). Escaping is byte by byte (a UTF-8
    // sequence at a time), so the parts may be escaped one by one.
    if (const auto* s = std::get_if<std::string>(&value))
        util::append_escaped(out, *s);
    else if (const auto* b = std::get_if<OutsideBytes>(&value))
        util::append_escaped(out, b->bytes);
    else if (const auto* u = std::get_if<std::uint64_t>(&value))
        append_decimal(out, *u);
    else if (const auto* i = std::get_if<std::int64_t>(&value))
        append_decimal(out, *i);
    else if (std::holds_alternative<std::monostate>(value) || std::holds_alternative<std::nullptr_t>(value))
        out += '-';
    else if (const auto* d = std::get_if<decode::Decoded>(&value)) {
        if (d->name)
            util::append_escaped(out, *d->name);
        if (!d->unit.empty())
            util::append_escaped(out, decoded_unit_part(*d));
        out += " (";
        append_decimal(out, d->raw);
        out += ')';
    } else
        util::append_escaped(out, to_text(value));
}

std::string raw_key(std::string_view key) { return fmt::format("{}_raw", key); }

std::unique_ptr<Printer> make_text_printer(std::ostream& out, bool color);
std::unique_ptr<Printer> make_json_printer(std::ostream& out);
std::unique_ptr<Printer> make_streaming_json_printer(std::ostream& out);

std::unique_ptr<Printer> make_printer(const PrinterOptions& options, std::ostream& out)
{
    if (options.json)
        return make_json_printer(out);
    return make_text_printer(out, options.color);
}

std::unique_ptr<Printer> make_streaming_printer(const PrinterOptions& options, std::ostream& out)
{
    if (options.json)
        return make_streaming_json_printer(out);
    return make_text_printer(out, options.color);
}

}  // namespace qps::formatters

#include "formatters/json_value.hpp"
#include "src/json.hpp"

namespace qps::formatters {

namespace {
struct JsonVisitor {
    Json operator()(std::monostate) const { return nullptr; }
    Json operator()(std::nullptr_t) const { return nullptr; }
    Json operator()(bool b) const { return b; }
    Json operator()(std::int64_t v) const { return v; }
    Json operator()(std::uint64_t v) const { return v; }
    Json operator()(double v) const { return v; }
    Json operator()(const std::string& s) const { return util::to_utf8(s); }
    Json operator()(const OutsideBytes& b) const { return util::to_utf8(b.bytes); }
    Json operator()(const decode::Decoded& d) const
    {
        Json j = Json::object();
        j["raw"] = d.raw;
        if (d.name)
            j["name"] = util::to_utf8(*d.name);
        if (!d.unit.empty())
            j[std::string(d.unit)] = !d.value ? Json(nullptr)
                                     : d.whole ? Json(static_cast<std::int64_t>(*d.value))
                                               : Json(*d.value);
        if (!d.known)
            j["known"] = false;
        return j;
    }
    Json operator()(const Scaled& v) const { return v.raw; }
    Json operator()(const Nanoseconds& t) const
    {
        if (t.ns == static_cast<double>(static_cast<std::int64_t>(t.ns)))
            return static_cast<std::int64_t>(t.ns);
        return t.ns;
    }
    Json operator()(const decode::Flags& f) const
    {
        Json j = Json::object();
        j["raw"] = f.raw;
        Json names = Json::array();
        for (const auto& n : f.names)
            names.push_back(util::to_utf8(n));
        j["names"] = std::move(names);
        j["unknown"] = f.unknown;
        return j;
    }
};
}  // namespace

nlohmann::ordered_json to_json(const Value& value) { return std::visit(JsonVisitor{}, value); }

}  // namespace qps::formatters
