// One printer interface, two implementations (aligned text, JSON). Report
// formatters call it without knowing which one they talk to; objects and
// lists are opened and closed by scopes.
#pragma once

#include <charconv>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "src/decode/decode.hpp"

namespace qps::formatters {

// A measured time: text shows microseconds with nanosecond resolution
// ("12.345"), JSON the number of nanoseconds.
struct Nanoseconds {
    double ns;
};

// A rate or amount in a display unit: text shows raw / unit with
// `decimals` digits, JSON the raw number (bytes/s, messages/s).
struct Scaled {
    double raw;
    double unit = 1;
    int decimals = 2;
};

// Bytes from outside whose exact value matters (a process name): text shows
// them as every string is shown (escaped), JSON as every string is (valid
// UTF-8, U+FFFD for ill-formed bytes) plus a member KEY_raw with the exact
// bytes in hex (src/util/outside_bytes.hpp). Only for a keyed member: a
// field, a datum or a table column.
struct OutsideBytes {
    std::string bytes;
};

// std::monostate: no value (JSON null for a field, left out of a table
// row); std::nullptr_t: "none", JSON null even in a table row (a QP's port
// before it has one). Text shows both as "-".
using Value = std::variant<std::monostate, std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string,
                           decode::Decoded, decode::Flags, Nanoseconds, Scaled, OutsideBytes>;

struct Column {
    std::string_view key;     // JSON member name
    std::string_view header;  // text column header
};

struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<Value>> rows;
    // Set for a table whose rows are named by the text of their first
    // column (counters): JSON has an object keyed by it, each row an
    // object of the other columns; otherwise a list of row objects.
    bool keyed = false;
    // Rows made as they are printed, after `rows`: `row_count` of them,
    // row_at(i, row) filling `row` (handed over empty) with the i-th, so
    // that a table of tens of thousands of rows is never held as Values.
    // The JSON printer of make_streaming_printer() calls it within table();
    // make_printer()'s keeps no reference to it either.
    std::size_t row_count = 0;
    std::function<void(std::size_t, std::vector<Value>&)> row_at = nullptr;
};

// Calls f(row) for each row of `t`: `rows`, then those of row_at.
template <class F>
void for_each_row(const Table& t, F&& f)
{
    for (const auto& row : t.rows)
        f(static_cast<const std::vector<Value>&>(row));
    if (!t.row_at)
        return;
    std::vector<Value> row;
    for (std::size_t i = 0; i < t.row_count; ++i) {
        row.clear();
        t.row_at(i, row);
        f(static_cast<const std::vector<Value>&>(row));
    }
}

class Printer {
public:
    virtual ~Printer() = default;
    // Starts the document of one command (JSON: schema_version, command).
    virtual void begin_document(std::string_view command) = 0;
    virtual void end_document() = 0;
    // Inside a list the key is ignored; `heading` is what text shows.
    virtual void begin_object(std::string_view key, std::string_view heading) = 0;
    virtual void end_object() = 0;
    virtual void begin_list(std::string_view key, std::string_view heading) = 0;
    virtual void end_list() = 0;
    virtual void field(std::string_view key, std::string_view label, const Value& value) = 0;
    // One element of a list of plain values (text: "- value"; JSON: the value).
    virtual void item(const Value& value) = 0;
    // field() and item() of a string, for a caller that holds it already (the
    // text printer shows it without a copy of its own; JSON takes a copy).
    virtual void field_text(std::string_view key, std::string_view label, std::string_view text)
    {
        field(key, label, std::string(text));
    }
    virtual void item_text(std::string_view text) { item(std::string(text)); }
    virtual void datum_text(std::string_view key, std::string_view text) { datum(key, std::string(text)); }
    // A member for JSON only: the text says the same another way (a label,
    // a heading or a note), e.g. a finding's id and status.
    virtual void datum(std::string_view key, const Value& value) = 0;
    virtual void table(std::string_view key, std::string_view heading, const Table& table) = 0;
    // A line for a reader of the text only, e.g. why a table is missing;
    // JSON leaves it out (the schema says when a member is absent).
    virtual void note(std::string_view text) = 0;

    // A subtree equal to one rendered before under the same `key` (nonzero;
    // equal keys, equal subtrees) need not be rendered again: replay(key)
    // writes what the printer kept of it and returns true, the caller then
    // skips it; otherwise the caller renders it between keep_begin(key) and
    // keep_end(). The text printer keeps the bytes of the last ones (a log
    // of errors repeats its values); JSON keeps none (a subtree's bytes
    // depend on its place).
    virtual bool replay(std::uint64_t /*key*/) { return false; }
    virtual void keep_begin(std::uint64_t /*key*/) {}
    virtual void keep_end() {}
};

struct PrinterOptions {
    bool json = false;
    bool color = false;
};

std::unique_ptr<Printer> make_printer(const PrinterOptions& options, std::ostream& out);
// The same, except that JSON is written as the formatter goes instead of
// as one document at its end, in the same bytes as make_printer()'s
// (the indentation and number format of nlohmann's dump): for documents
// of tens of thousands of rows (`qp list`), whose tree would take ~1 KB a
// row. Its formatter must give each key of an object once (the tree keeps
// the last of twice, this printer would print both) and should not throw
// part-way (what was written stays written).
std::unique_ptr<Printer> make_streaming_printer(const PrinterOptions& options, std::ostream& out);
// JSON Lines: each document (begin_document .. end_document) is one line,
// flushed at its end (`ports --watch` into a pipe).
std::unique_ptr<Printer> make_json_lines_printer(std::ostream& out);

// Text of a value before the text printer escapes it (exposed for tests;
// also the key of a keyed table's row in JSON).
std::string to_text(const Value& value);
// What the text printer shows of a value, util::escape_text(to_text(value)),
// appended to `out` without a string of its own (a table's cells).
void append_shown(std::string& out, const Value& value);
// The decimal digits of an integer appended to `out` (text and JSON alike).
template <class Int>
void append_decimal(std::string& out, Int v)
{
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}
// The member that carries the exact bytes of an OutsideBytes value: "comm"
// → "comm_raw".
std::string raw_key(std::string_view key);

class ObjectScope {
public:
    ObjectScope(Printer& p, std::string_view key, std::string_view heading = {}) : p_(p)
    {
        p_.begin_object(key, heading);
    }
    ~ObjectScope() { p_.end_object(); }
    ObjectScope(const ObjectScope&) = delete;
    ObjectScope& operator=(const ObjectScope&) = delete;

private:
    Printer& p_;
};

class ListScope {
public:
    ListScope(Printer& p, std::string_view key, std::string_view heading = {}) : p_(p)
    {
        p_.begin_list(key, heading);
    }
    ~ListScope() { p_.end_list(); }
    ListScope(const ListScope&) = delete;
    ListScope& operator=(const ListScope&) = delete;

private:
    Printer& p_;
};

}  // namespace qps::formatters
