// JSON: one document per command, keys in the order the formatter emits
// them, every decoded value with its raw value (docs/ARCHITECTURE.md, "The
// JSON contract").
#include <nlohmann/json.hpp>
#include <ostream>

#include "formatters/json_value.hpp"
#include "formatters/printer.hpp"

namespace qps::fmt_out {

namespace {

using Json = nlohmann::ordered_json;

class JsonPrinter final : public Printer {
public:
    JsonPrinter(std::ostream& out, int indent) : out_(out), indent_(indent) {}

    void begin_document(std::string_view command) override
    {
        root_ = Json::object();
        root_["schema_version"] = schema_version;
        root_["command"] = command;
        stack_.assign(1, &root_);
    }
    void end_document() override { out_ << root_.dump(indent_) << '\n' << std::flush; }

    void begin_object(std::string_view key, std::string_view) override { push(key, Json::object()); }
    void end_object() override { stack_.pop_back(); }
    void begin_list(std::string_view key, std::string_view) override { push(key, Json::array()); }
    void end_list() override { stack_.pop_back(); }

    void field(std::string_view key, std::string_view, const Value& value) override
    {
        add(key, to_json(value));
    }
    void item(const Value& value) override { add({}, to_json(value)); }
    void datum(std::string_view key, const Value& value) override { add(key, to_json(value)); }

    void table(std::string_view key, std::string_view, const Table& t) override
    {
        Json rows = t.keyed ? Json::object() : Json::array();
        for (const auto& row : t.rows) {
            Json obj = Json::object();
            for (std::size_t c = t.keyed ? 1 : 0; c < row.size() && c < t.columns.size(); ++c)
                if (!std::holds_alternative<std::monostate>(row[c]))
                    obj[std::string(t.columns[c].key)] = to_json(row[c]);
            if (t.keyed)
                rows[row.empty() ? std::string() : to_text(row[0])] = std::move(obj);
            else
                rows.push_back(std::move(obj));
        }
        add(key, std::move(rows));
    }

    void note(std::string_view) override {}

private:
    Json& add(std::string_view key, Json value)
    {
        Json& top = *stack_.back();
        if (top.is_array()) {
            top.push_back(std::move(value));
            return top.back();
        }
        Json& slot = top[std::string(key)];
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

}  // namespace qps::fmt_out
