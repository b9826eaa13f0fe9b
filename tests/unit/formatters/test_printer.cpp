#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formatters/printer.hpp"
#include "src/util/outside_bytes.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {
void emit(Printer& p)
{
    p.begin_document("demo");
    {
        ListScope list(p, "devices");
        ObjectScope dev(p, "", "dev0");
        p.field("state", "state", decode::Decoded::named(4, "ACTIVE"));
        p.field("active_mtu", "active MTU", decode::Decoded::quantity(3, std::nullopt, "bytes", 1024.0));
        p.field("flags", "capability flags", decode::Flags{0x10001, {"A"}, 0x10000});
        p.field("missing", "missing", Value{});
        Table t{{{"index", "IDX"}, {"gid", "GID"}}, {}};
        t.rows.push_back({std::uint64_t{0}, std::string("fe80::1")});
        t.rows.push_back({std::uint64_t{12}, Value{}});
        p.table("gids", "GID table", t);
    }
    p.end_document();
}
}  // namespace

TEST_CASE("JSON printer: schema_version, raw beside decoded, tables as arrays")
{
    std::ostringstream out;
    auto p = make_printer({.json = true, .color = false}, out);
    emit(*p);
    const auto j = nlohmann::json::parse(out.str());
    CHECK(j["schema_version"] == 2);
    CHECK(j["command"] == "demo");
    const auto& d = j["devices"][0];
    CHECK(d["state"]["raw"] == 4);
    CHECK(d["state"]["name"] == "ACTIVE");
    CHECK(d["active_mtu"]["raw"] == 3);
    CHECK(d["active_mtu"]["bytes"] == 1024.0);
    CHECK(d["flags"]["raw"] == 0x10001);
    CHECK(d["flags"]["names"] == nlohmann::json::array({"A"}));
    CHECK(d["flags"]["unknown"] == 0x10000);
    CHECK(d["missing"].is_null());
    REQUIRE(d["gids"].size() == 2);
    CHECK(d["gids"][0]["gid"] == "fe80::1");
    CHECK_FALSE(d["gids"][1].contains("gid"));  // no value: member left out
}

TEST_CASE("text printer: aligned labels, decoded values with raw, aligned table")
{
    std::ostringstream out;
    auto p = make_printer({.json = false, .color = false}, out);
    emit(*p);
    const std::string expected = "dev0\n"
                                 "  state            : ACTIVE (4)\n"
                                 "  active MTU       : 1024 bytes (3)\n"
                                 "  capability flags : A, unknown 0x10000 (0x10001)\n"
                                 "  missing          : -\n"
                                 "  GID table\n"
                                 "    IDX  GID\n"
                                 "    0    fe80::1\n"
                                 "    12   -\n";
    CHECK(out.str() == expected);
}

TEST_CASE("text of values")
{
    CHECK(to_text(decode::Decoded::quantity(32, "EDR", "lane_gbps", 25.0)) == "EDR, 25 Gb/s per lane (32)");
    CHECK(to_text(decode::Decoded::quantity(2, "4X", "lanes", 4.0)) == "4X (2)");
    CHECK(to_text(decode::Flags{0, {}, 0}) == "none (0x0)");
    CHECK(to_text(true) == "yes");
    CHECK(to_text(2.5) == "2.5");
}

TEST_CASE("text table: columns by display width, a cell's own trailing blanks and blank rows trimmed")
{
    std::ostringstream out;
    auto p = make_printer({.json = false, .color = false}, out);
    p->begin_document("demo");
    Table t{{{"a", "A"}, {"b", "B"}, {"c", "C"}}, {}};
    t.rows.push_back({std::string("x"), std::string("y "), std::string()});
    t.rows.push_back({std::string("long"), std::string("\u00b5s"), std::string("z")});
    t.rows.push_back({std::string(), std::string(), std::string()});
    t.rows.push_back({std::string("e\x1b"), std::string("\u00b5")});
    p->table("t", "", t);
    p->end_document();
    CHECK(out.str() == "  A     B   C\n"
                       "  x     y\n"
                       "  long  \u00b5s  z\n"
                       "  \n"
                       "  e\\e   \u00b5\n");
}

TEST_CASE("append_shown: what a table cell shows is the escaped to_text of every kind of value")
{
    const std::vector<Value> values{
        Value{},
        Value{nullptr},
        true,
        std::int64_t{-42},
        std::int64_t{INT64_MIN},
        std::uint64_t{UINT64_MAX},
        0.125,
        std::string("plain"),
        std::string("tab\there \x1b[31m and \xff"),
        decode::Decoded::named(3, "RTS"),
        decode::Decoded::named(-1, "bad\nname"),
        decode::Decoded::quantity(32, "EDR", "lane_gbps", 25.0),
        decode::Decoded::quantity(3, std::nullopt, "bytes", 1024.0),
        decode::Decoded::quantity(9, "slow", "us", 67.0),
        decode::hex_number(0x11),
        decode::hex_number(0xabc, 8),
        decode::Flags{0x10001, {"A"}, 0x10000},
        Nanoseconds{1234567},
        Scaled{12345, 1000, 1},
        OutsideBytes{"a\x1b" "b\xc3"},
    };
    for (const auto& v : values) {
        std::string out = "prefix|";
        append_shown(out, v);
        CHECK(out == "prefix|" + util::escape_text(to_text(v)));
    }
    CHECK(to_text(decode::hex_number(0xabc, 8)) == "0x00000abc (2748)");
    CHECK(to_text(decode::hex_number(0)) == "0x0 (0)");
}

TEST_CASE("list items: text shows '- value' beside aligned fields, JSON an array of the values")
{
    auto emit_items = [](Printer& p) {
        p.begin_document("demo");
        p.field("summary", "what happened", std::string("retry exceeded"));
        {
            ListScope checks(p, "checks", "check");
            p.item(std::string("is the peer QP still there?"));
            p.item(std::string("does dest-qpn name the peer's QPN?"));
        }
        p.end_document();
    };
    std::ostringstream text;
    auto t = make_printer({.json = false, .color = false}, text);
    emit_items(*t);
    CHECK(text.str() == "what happened : retry exceeded\ncheck\n  - is the peer QP still there?\n"
                        "  - does dest-qpn name the peer's QPN?\n");
    std::ostringstream json;
    auto j = make_printer({.json = true, .color = false}, json);
    emit_items(*j);
    const auto doc = nlohmann::json::parse(json.str());
    CHECK(doc["checks"] == nlohmann::json::array({"is the peer QP still there?", "does dest-qpn name the peer's QPN?"}));
}
