// JSON: one document per command, keys in the order the formatter emits
// them, every decoded value with its raw value (docs/output.md, "The
// JSON contract").
#include <ostream>

#include "formatters/json_value.hpp"
#include "formatters/printer.hpp"
#include "src/json.hpp"
#include "src/util/json_text.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

class JsonPrinter final : public Printer {
public:
    JsonPrinter(std::ostream& out, int indent) : out_(out), indent_(indent) {}

    void begin_document(std::string_view command) override
    {
        root_ = Json::object();
        root_["schema_version"] = schema_version;
        root_["command"] = util::to_utf8(command);
        stack_.assign(1, &root_);
    }
    void end_document() override { out_ << util::json_text(root_, indent_) << '\n' << std::flush; }

    void begin_object(std::string_view key, std::string_view) override { push(key, Json::object()); }
    void end_object() override { stack_.pop_back(); }
    void begin_list(std::string_view key, std::string_view) override { push(key, Json::array()); }
    void end_list() override { stack_.pop_back(); }

    void field(std::string_view key, std::string_view, const Value& value) override { member(key, value); }
    void item(const Value& value) override { add({}, to_json(value)); }
    void datum(std::string_view key, const Value& value) override { member(key, value); }

    void table(std::string_view key, std::string_view, const Table& t) override
    {
        Json rows = t.keyed ? Json::object() : Json::array();
        for_each_row(t, [&](const std::vector<Value>& row) {
            Json obj = Json::object();
            for (std::size_t c = t.keyed ? 1 : 0; c < row.size() && c < t.columns.size(); ++c)
                if (!std::holds_alternative<std::monostate>(row[c]))
                    set_member(obj, t.columns[c].key, row[c]);
            if (t.keyed)
                rows[util::to_utf8(row.empty() ? std::string() : to_text(row[0]))] = std::move(obj);
            else
                rows.push_back(std::move(obj));
        });
        add(key, std::move(rows));
    }

    void note(std::string_view) override {}

private:
    // A keyed member; OutsideBytes also gives KEY_raw, the bytes in hex.
    static void set_member(Json& obj, std::string_view key, const Value& value)
    {
        obj[util::to_utf8(key)] = to_json(value);
        if (const auto* b = std::get_if<OutsideBytes>(&value))
            obj[util::to_utf8(raw_key(key))] = util::hex_bytes(b->bytes);
    }
    void member(std::string_view key, const Value& value)
    {
        Json& top = *stack_.back();
        if (top.is_array())
            top.push_back(to_json(value));
        else
            set_member(top, key, value);
    }
    Json& add(std::string_view key, Json value)
    {
        Json& top = *stack_.back();
        if (top.is_array()) {
            top.push_back(std::move(value));
            return top.back();
        }
        Json& slot = top[util::to_utf8(key)];
        slot = std::move(value);
        return slot;
    }
    void push(std::string_view key, Json value) { stack_.push_back(&add(key, std::move(value))); }

    std::ostream& out_;
    int indent_;  // -1: the whole document on one line (JSON Lines)
    Json root_;
    std::vector<Json*> stack_;
};

// The same document as JsonPrinter's with indent 2, written as it goes:
// each container is opened and closed here, in nlohmann's layout (members
// on lines of their own, indented two spaces a level; "{}" and "[]" when
// empty), and each member's value is dumped by nlohmann itself, its lines
// indented to the member's level (a dump has a line break nowhere but
// between its own elements: strings escape theirs).
class StreamingJsonPrinter final : public Printer {
public:
    explicit StreamingJsonPrinter(std::ostream& out) : out_(out) {}

    void begin_document(std::string_view command) override
    {
        buf_.clear();
        open_.clear();
        buf_ += '{';
        open_.push_back({false, false});
        value_member("schema_version", schema_version);
        value_member("command", Json(util::to_utf8(command)));
    }
    void end_document() override
    {
        while (!open_.empty())
            close();
        buf_ += '\n';
        out_ << buf_ << std::flush;
        buf_.clear();
    }

    void begin_object(std::string_view key, std::string_view) override { open(key, '{', false); }
    void end_object() override { close(); }
    void begin_list(std::string_view key, std::string_view) override { open(key, '[', true); }
    void end_list() override { close(); }

    void field(std::string_view key, std::string_view, const Value& value) override { member(key, value); }
    void item(const Value& value) override { value_member({}, to_json(value)); }
    void datum(std::string_view key, const Value& value) override { member(key, value); }

    void table(std::string_view key, std::string_view, const Table& t) override
    {
        if (t.keyed) {
            // Rows keyed by their first column: a row of a key met before replaces
            // it in place, as the tree does; such tables are short (counters).
            Json rows = Json::object();
            for_each_row(t, [&](const std::vector<Value>& row) {
                rows[util::to_utf8(row.empty() ? std::string() : to_text(row[0]))] = row_object(t, row);
            });
            value_member(key, rows);
            return;
        }
        // Each row written member by member, as row_object() would dump
        // (a table may have tens of thousands of rows): the columns' keys
        // quoted once, numbers straight in, other values through nlohmann.
        std::vector<std::string> keys, raw_keys;
        for (const auto& c : t.columns) {
            keys.push_back(quoted_key(c.key));
            raw_keys.push_back(quoted_key(raw_key(c.key)));
        }
        open(key, '[', true);
        for_each_row(t, [&](const std::vector<Value>& row) {
            open({}, '{', false);
            for (std::size_t c = 0; c < row.size() && c < t.columns.size(); ++c) {
                if (std::holds_alternative<std::monostate>(row[c]))
                    continue;
                start_quoted_member(keys[c]);
                write_value(row[c]);
                if (const auto* b = std::get_if<OutsideBytes>(&row[c])) {
                    start_quoted_member(raw_keys[c]);
                    write_json(Json(util::hex_bytes(b->bytes)));
                }
            }
            close();
            spill();
        });
        close();
    }

    void note(std::string_view) override {}

private:
    struct Open {
        bool list;
        bool any;  // a member written already
    };

    static Json row_object(const Table& t, const std::vector<Value>& row)
    {
        Json obj = Json::object();
        for (std::size_t c = t.keyed ? 1 : 0; c < row.size() && c < t.columns.size(); ++c)
            if (!std::holds_alternative<std::monostate>(row[c])) {
                obj[util::to_utf8(t.columns[c].key)] = to_json(row[c]);
                if (const auto* b = std::get_if<OutsideBytes>(&row[c]))
                    obj[util::to_utf8(raw_key(t.columns[c].key))] = util::hex_bytes(b->bytes);
            }
        return obj;
    }

    static std::string quoted_key(std::string_view key) { return util::json_text(Json(util::to_utf8(key))); }
    // The separator and indentation of the next member, and its key in an object.
    void start_member(std::string_view key) { start_quoted_member(open_.back().list ? std::string() : quoted_key(key)); }
    void start_quoted_member(std::string_view quoted)
    {
        Open& o = open_.back();
        buf_ += o.any ? ",\n" : "\n";
        o.any = true;
        buf_.append(2 * open_.size(), ' ');
        if (!o.list) {
            buf_ += quoted;
            buf_ += ": ";
        }
    }
    // A value as nlohmann's dump() at indent 2 writes it, indented to the member's level.
    void write_json(const Json& value)
    {
        const std::string text = util::json_text(value, 2);
        const std::size_t indent = 2 * open_.size();
        std::size_t from = 0;
        for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
            buf_.append(text, from, nl + 1 - from);
            buf_.append(indent, ' ');
        }
        buf_.append(text, from);
    }
    // write_json(to_json(value)), integers, booleans and null without a Json of their own.
    void write_value(const Value& value)
    {
        if (const auto* u = std::get_if<std::uint64_t>(&value))
            append_decimal(buf_, *u);
        else if (const auto* i = std::get_if<std::int64_t>(&value))
            append_decimal(buf_, *i);
        else if (const auto* b = std::get_if<bool>(&value))
            buf_ += *b ? "true" : "false";
        else if (std::holds_alternative<std::nullptr_t>(value) || std::holds_alternative<std::monostate>(value))
            buf_ += "null";
        else if (const auto* d = std::get_if<decode::Decoded>(&value))
            write_decoded(*d);
        else
            write_json(to_json(value));
    }
    // to_json(Decoded)'s object, member by member (a QP's row has four).
    void write_decoded(const decode::Decoded& d)
    {
        buf_ += '{';
        open_.push_back({false, false});
        start_quoted_member("\"raw\"");
        append_decimal(buf_, d.raw);
        if (d.name) {
            start_quoted_member("\"name\"");
            write_json(Json(util::to_utf8(*d.name)));
        }
        if (!d.unit.empty()) {
            start_quoted_member(quoted_key(d.unit));
            if (!d.value)
                buf_ += "null";
            else if (d.whole)
                append_decimal(buf_, static_cast<std::int64_t>(*d.value));
            else
                write_json(Json(*d.value));
        }
        if (!d.known) {
            start_quoted_member("\"known\"");
            buf_ += "false";
        }
        close();
    }
    void value_member(std::string_view key, const Json& value)
    {
        start_member(key);
        write_json(value);
        spill();
    }
    // A keyed member; OutsideBytes also gives KEY_raw, the bytes in hex.
    void member(std::string_view key, const Value& value)
    {
        value_member(key, to_json(value));
        if (open_.back().list)
            return;
        if (const auto* b = std::get_if<OutsideBytes>(&value))
            value_member(raw_key(key), Json(util::hex_bytes(b->bytes)));
    }
    void open(std::string_view key, char bracket, bool list)
    {
        start_member(key);
        buf_ += bracket;
        open_.push_back({list, false});
    }
    void close()
    {
        const Open o = open_.back();
        open_.pop_back();
        if (o.any) {
            buf_ += '\n';
            buf_.append(2 * open_.size(), ' ');
        }
        buf_ += o.list ? ']' : '}';
    }
    // Hands what is written on once there is enough of it.
    void spill()
    {
        if (buf_.size() < 64 * 1024)
            return;
        out_ << buf_;
        buf_.clear();
    }

    std::ostream& out_;
    std::string buf_;
    std::vector<Open> open_;
};

}  // namespace

std::unique_ptr<Printer> make_json_printer(std::ostream& out) { return std::make_unique<JsonPrinter>(out, 2); }

std::unique_ptr<Printer> make_streaming_json_printer(std::ostream& out)
{
    return std::make_unique<StreamingJsonPrinter>(out);
}

std::unique_ptr<Printer> make_json_lines_printer(std::ostream& out)
{
    return std::make_unique<JsonPrinter>(out, -1);
}

}  // namespace qps::formatters
