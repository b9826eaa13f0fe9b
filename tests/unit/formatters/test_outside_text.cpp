// Bytes from outside through both printers: JSON stays valid UTF-8 (U+FFFD,
// plus KEY_raw in hex for OutsideBytes), text shows them escaped.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formatters/printer.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

// A process name as a hostile user may choose it: 0xFF and an ESC sequence.
const std::string odd_name = "qp\xFF\x1b[2Jx";
const std::string replaced = "\xEF\xBF\xBD";

void emit_outside(Printer& p)
{
    p.begin_document("odd");
    {
        ObjectScope o(p, "qp", "QP of " + odd_name);
        p.field("comm", "command", OutsideBytes{odd_name});
        p.datum("owner", OutsideBytes{odd_name});
        p.field("text", "line", std::string("bad \xC0\xAF byte"));
        p.field(odd_name, odd_name, decode::Decoded::named(1, odd_name));
        p.field("flags", "flags", decode::Flags{1, {odd_name}, 0});
        {
            ListScope l(p, "notes", "notes");
            p.item(std::string("\xE2\x80"));
        }
        Table t{{{"pid", "PID"}, {"comm", "COMMAND"}}, {}};
        t.rows.push_back({std::uint64_t{7}, OutsideBytes{odd_name}});
        p.table("qps", "QPs", t);
        Table k{{{"name", "NAME"}, {"value", "VALUE"}}, {}, true};
        k.rows.push_back({std::string("ctr\xFF"), std::uint64_t{3}});
        p.table("counters", "counters", k);
        p.note("owner " + odd_name);
    }
    p.end_document();
}

}  // namespace

TEST_CASE("JSON printer: bytes that are not UTF-8 never make the writer fail; OutsideBytes also gives KEY_raw")
{
    std::ostringstream out;
    auto p = make_printer({.json = true, .color = false}, out);
    REQUIRE_NOTHROW(emit_outside(*p));
    const auto j = nlohmann::json::parse(out.str());  // valid UTF-8, or parse would throw
    const auto& qp = j["qp"];
    CHECK(qp["comm"] == "qp" + replaced + "\x1b[2Jx");
    CHECK(qp["comm_raw"] == "7170ff1b5b324a78");
    CHECK(qp["owner_raw"] == "7170ff1b5b324a78");
    CHECK(qp["text"] == "bad " + replaced + replaced + " byte");
    CHECK(qp["qp" + replaced + "\x1b[2Jx"]["name"] == "qp" + replaced + "\x1b[2Jx");
    CHECK(qp["flags"]["names"][0] == "qp" + replaced + "\x1b[2Jx");
    CHECK(qp["notes"][0] == replaced);
    CHECK(qp["qps"][0]["comm"] == "qp" + replaced + "\x1b[2Jx");
    CHECK(qp["qps"][0]["comm_raw"] == "7170ff1b5b324a78");
    CHECK(qp["counters"]["ctr" + replaced]["value"] == 3);
    // JSON escapes the control character itself: no raw ESC in the document.
    CHECK(out.str().find('\x1b') == std::string::npos);
}

TEST_CASE("JSON Lines printer: the same rule")
{
    std::ostringstream out;
    auto p = make_json_lines_printer(out);
    REQUIRE_NOTHROW(emit_outside(*p));
    CHECK(nlohmann::json::parse(out.str())["qp"]["comm_raw"] == "7170ff1b5b324a78");
}

TEST_CASE("text printer: headings, labels, values, table cells and notes show control and odd bytes escaped")
{
    for (const bool color : {false, true}) {
        std::ostringstream out;
        auto p = make_printer({.json = false, .color = color}, out);
        emit_outside(*p);
        const std::string s = out.str();
        CAPTURE(s);
        CHECK(s.find("\xFF") == std::string::npos);
        CHECK(s.find("\xC0") == std::string::npos);
        CHECK(s.find("QP of qp\\xff\\e[2Jx") != std::string::npos);
        CHECK(s.find("command      : qp\\xff\\e[2Jx") != std::string::npos);
        CHECK(s.find("bad \\xc0\\xaf byte") != std::string::npos);
        CHECK(s.find("- \\xe2\\x80") != std::string::npos);
        CHECK(s.find("7    qp\\xff\\e[2Jx") != std::string::npos);
        CHECK(s.find("ctr\\xff") != std::string::npos);
        CHECK(s.find("owner qp\\xff\\e[2Jx") != std::string::npos);
        // The only ESC bytes are the printer's own bold, with --color.
        std::string without_bold = s;
        for (const std::string code : {"\x1b[1m", "\x1b[0m"})
            for (auto at = without_bold.find(code); at != std::string::npos; at = without_bold.find(code))
                without_bold.erase(at, code.size());
        CHECK(without_bold.find('\x1b') == std::string::npos);
    }
}

TEST_CASE("to_text of OutsideBytes is the bytes; the printer escapes them")
{
    CHECK(to_text(OutsideBytes{"a\xFF"}) == "a\xFF");
    CHECK(raw_key("comm") == "comm_raw");
}
