// libFuzzer target: arbitrary bytes through every kind of string the
// Printer takes (a document's command, headings, keys, labels, plain
// strings, OutsideBytes, a Decoded's name, a Flags' names, list items, table
// cells and keyed rows, notes) and every Value type beside them, into the
// text printer (with and without colour), the JSON printer and the JSON
// Lines printer: the report → text and report → JSON paths.
//
// A bug is any exception (the JSON writer's type_error.316 was one), a
// crash or sanitizer report, and any output that breaks the rule of
// src/util/outside_bytes.hpp: JSON that does not parse or is not UTF-8, a
// KEY_raw that is not the exact bytes, text that is not UTF-8 or holds a
// control character other than the line ends and the printer's own bold,
// or nlohmann's replace handler disagreeing with util::to_utf8.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "formatters/printer.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

[[noreturn]] void fail(const char* what, std::string_view output)
{
    std::fprintf(stderr, "fuzz_outside_bytes: %s\n%.*s\n", what, static_cast<int>(output.size()), output.data());
    std::abort();
}

// The input cut at each 0x00 byte into pieces (so a mutation moves bytes
// between fields); past the last piece the fields get "".
class Pieces {
public:
    explicit Pieces(std::string_view bytes)
    {
        std::size_t start = 0;
        for (std::size_t i = 0; i <= bytes.size(); ++i)
            if (i == bytes.size() || bytes[i] == '\0') {
                parts_.emplace_back(bytes.substr(start, i - start));
                start = i + 1;
            }
    }
    std::string next() { return at_ < parts_.size() ? parts_[at_++] : std::string(); }
    // A member name: never one that ends in "_raw", which would be taken
    // for another member's exact bytes by check_raw.
    std::string key()
    {
        std::string k = next();
        if (k.ends_with("_raw"))
            k += '_';
        return k;
    }
    const std::vector<std::string>& all() const { return parts_; }

private:
    std::vector<std::string> parts_;
    std::size_t at_ = 0;
};

void emit(Printer& p, std::string_view bytes)
{
    Pieces in(bytes);
    p.begin_document(in.next());
    {
        ObjectScope top(p, in.key(), in.next());
        const std::string key = in.key();
        p.field(key, in.next(), in.next());
        p.field("comm", in.next(), OutsideBytes{in.next()});
        p.datum("owner", OutsideBytes{in.next()});
        p.datum(in.key(), std::string(bytes));
        p.field("state", in.next(), decode::Decoded::named(4, in.next()));
        p.field("mtu", "MTU", decode::Decoded::quantity(3, in.next(), "bytes", 1024.0));
        p.field("odd_unit", "unit", decode::Decoded::count(1, std::nullopt, "lanes", 4));
        p.field("flags", in.next(), decode::Flags{0x10001, {in.next(), in.next()}, 0x10000});
        p.field("none", "none", Value{});
        p.field("null", "null", nullptr);
        p.field("yes", "yes", true);
        p.field("i", "i", std::int64_t{-1});
        p.field("u", "u", std::uint64_t{bytes.size()});
        p.field("d", "d", 0.5);
        p.field("ns", "ns", Nanoseconds{1234.5});
        p.field("rate", "rate", Scaled{1e9, 1e6, 1});
        {
            ListScope list(p, in.key(), in.next());
            p.item(in.next());
            p.item(decode::Decoded::named(1, in.next()));
            ObjectScope inner(p, in.key(), in.next());
            p.datum(in.key(), OutsideBytes{in.next()});
        }
        Table t{{{"name", "NAME"}, {"comm", "COMMAND"}, {"n", "N"}}, {}};
        Table keyed{{{"name", "NAME"}, {"value", "VALUE"}}, {}, true};
        for (const std::string& piece : in.all()) {
            t.rows.push_back({piece, OutsideBytes{piece}, std::uint64_t{piece.size()}});
            keyed.rows.push_back({piece, std::uint64_t{piece.size()}});
        }
        p.table("rows", in.next(), t);
        p.table("counters", in.next(), keyed);
        p.note(in.next());
        p.note(std::string(bytes));
    }
    p.end_document();
}

// Every string's KEY_raw must be the hex of exact bytes that the input had.
void check_raw(const nlohmann::json& j, std::string_view bytes, std::string_view output)
{
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
            if (k.ends_with("_raw") && v.is_string()) {
                const std::string& hex = v.get_ref<const std::string&>();
                if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
                    fail("a _raw member is not lowercase hex", output);
                std::string raw;
                for (std::size_t i = 0; i < hex.size(); i += 2)
                    raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
                if (bytes.find(raw) == std::string_view::npos)
                    fail("a _raw member is not bytes of the input", output);
            }
            check_raw(v, bytes, output);
        }
    } else if (j.is_array()) {
        for (const auto& v : j)
            check_raw(v, bytes, output);
    }
}

void check_json(const std::string& out, std::string_view bytes, bool lines)
{
    if (!util::is_utf8(out))
        fail("JSON output is not UTF-8", out);
    if (lines && out.find('\n') != out.size() - 1)
        fail("a JSON Lines document spans lines", out);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(out);
    } catch (const std::exception& e) {
        fail(e.what(), out);
    }
    check_raw(j, bytes, out);
}

void check_text(const std::string& out, bool color)
{
    if (!util::is_utf8(out))
        fail("text output is not UTF-8", out);
    std::string rest = out;
    if (color)
        for (const std::string code : {"\x1b[1m", "\x1b[0m"})
            for (auto at = rest.find(code); at != std::string::npos; at = rest.find(code, at))
                rest.erase(at, code.size());
    for (std::size_t i = 0; i < rest.size(); ++i) {
        const auto c = static_cast<unsigned char>(rest[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            fail("text output holds a control character", out);
        if (c == 0xC2 && i + 1 < rest.size() && static_cast<unsigned char>(rest[i + 1]) <= 0x9F)
            fail("text output holds a C1 control character", out);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        for (const bool color : {false, true}) {
            std::ostringstream out;
            emit(*make_printer({.json = false, .color = color}, out), bytes);
            check_text(out.str(), color);
        }
        std::ostringstream json;
        emit(*make_printer({.json = true, .color = false}, json), bytes);
        check_json(json.str(), bytes, false);
        std::ostringstream lines;
        emit(*make_json_lines_printer(lines), bytes);
        check_json(lines.str(), bytes, true);
        // The last safety net replaces as the rule does.
        const std::string s(bytes);
        if (nlohmann::json::parse(util::json_text(nlohmann::json(s))).get<std::string>() != util::to_utf8(s))
            fail("nlohmann's replace handler and util::to_utf8 disagree", s);
        if (util::escape_text(util::escape_text(s)) != util::escape_text(s))
            fail("escape_text is not idempotent", s);
    } catch (const std::exception& e) {
        fail(e.what(), bytes);
    }
    return 0;
}
