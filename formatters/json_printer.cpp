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
        for (const auto& row : t.rows) {
            Json obj = Json::object();
            for (std::size_t c = t.keyed ? 1 : 0; c < row.size() && c < t.columns.size(); ++c)
                if (!std::holds_alternative<std::monostate>(row[c]))
                    set_member(obj, t.columns[c].key, row[c]);
            if (t.keyed)
                rows[util::to_utf8(row.empty() ? std::string() : to_text(row[0]))] = std::move(obj);
            else
                rows.push_back(std::move(obj));
        }
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

}  // namespace

std::unique_ptr<Printer> make_json_printer(std::ostream& out) { return std::make_unique<JsonPrinter>(out, 2); }

std::unique_ptr<Printer> make_json_lines_printer(std::ostream& out)
{
    return std::make_unique<JsonPrinter>(out, -1);
}

}  // namespace qps::formatters
