// make_streaming_printer(): the same bytes as make_printer()'s, written as
// the formatter goes; tables whose rows are made as they are printed
// (Table::row_at) print as those held in Table::rows.
#include <doctest/doctest.h>
#include <sstream>
#include <string>

#include "formatters/cm.hpp"
#include "formatters/printer.hpp"
#include "formatters/qp.hpp"
#include "src/ops/cm_list.hpp"
#include "src/ops/qp_list.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

// A document of every shape: nested objects and lists, empty ones, items,
// fields of every kind of value (outside bytes, doubles, nulls), a held
// table, a keyed one with a key met twice, an empty one.
void every_shape(Printer& p)
{
    p.begin_document("demo \"quoted\"");
    p.datum("pid_namespace", std::string("host"));
    {
        ListScope list(p, "devices", "devices");
        {
            ObjectScope dev(p, "", "dev0");
            p.field("state", "state", decode::Decoded::named(4, "ACTIVE"));
            p.field("mtu", "MTU", decode::Decoded::quantity(3, std::nullopt, "bytes", 1024.0));
            p.field("rate", "rate", decode::Decoded::count(5, std::string("x"), "lanes", 4));
            p.field("flags", "flags", decode::Flags{0x10001, {"A", "B"}, 0x10000});
            p.field("missing", "missing", Value{});
            p.field("none", "none", Value{nullptr});
            p.field("ratio", "ratio", 0.1 + 0.2);
            p.field("whole", "whole", 3.0);
            p.field("signed", "signed", std::int64_t{-7});
            p.field("comm", "command", OutsideBytes{std::string("qp\x01\xff" "churn\n", 10)});
            p.datum("ns", Nanoseconds{1234.5});
            p.datum("scaled", Scaled{2.5e9, 1e9, 2});
            ListScope notes(p, "notes", "notes");
            p.item(std::string("first \u00b5s"));
            p.item(true);
            p.field("ignored_key", "label", OutsideBytes{"in a list"});
        }
        ObjectScope empty(p, "", "");
    }
    {
        ListScope empty(p, "empty_list", "");
    }
    {
        ObjectScope empty(p, "empty_object", "heading");
        p.note("a note for the text only");
    }
    Table held{{{"index", "IDX"}, {"gid", "GID"}, {"comm", "COMMAND"}}, {}};
    held.rows.push_back({std::uint64_t{0}, std::string("fe80::1"), OutsideBytes{"a"}});
    held.rows.push_back({std::uint64_t{12}, Value{}, OutsideBytes{"b\tc"}});
    p.table("gids", "GID table", held);
    Table keyed{{{"name", "NAME"}, {"value", "VALUE"}}, {}, true};
    keyed.rows.push_back({std::string("rx"), std::uint64_t{1}});
    keyed.rows.push_back({std::string("tx"), std::uint64_t{2}});
    keyed.rows.push_back({std::string("rx"), std::uint64_t{3}});
    p.table("counters", "counters", keyed);
    p.table("none", "nothing", Table{{{"a", "A"}}, {}});
    Table made{{{"n", "N"}, {"text", "TEXT"}}, {}};
    made.rows.push_back({std::uint64_t{100}, std::string("held first")});
    made.row_count = 3;
    made.row_at = [](std::size_t i, std::vector<Value>& row) {
        row = {std::uint64_t{i}, i == 1 ? Value{} : Value{std::string(i, 'x')}};
    };
    p.table("made", "made", made);
    // A row of every kind of value in a table's cells (rows are streamed member by member).
    decode::Decoded unknown = decode::Decoded::named(99, "odd \"name\"");
    unknown.known = false;
    decode::Decoded no_value = decode::Decoded::quantity(7, std::nullopt, "gbps", 0.0);
    no_value.value.reset();
    Table kinds{{{"dec", "DEC"},
                 {"qty", "QTY"},
                 {"cnt", "CNT"},
                 {"unk", "UNK"},
                 {"nov", "NOV"},
                 {"flags", "FLAGS"},
                 {"ns", "NS"},
                 {"scaled", "SCALED"},
                 {"dbl", "DBL"},
                 {"yes", "YES"},
                 {"none", "NONE"},
                 {"neg", "NEG"},
                 {"comm", "COMMAND"},
                 {"text", "TEXT"}},
                {}};
    kinds.rows.push_back({decode::hex_number(0x11), decode::Decoded::quantity(3, std::nullopt, "bytes", 1024.5),
                          decode::Decoded::count(5, std::string("x"), "lanes", 4), unknown, no_value,
                          decode::Flags{0x3, {"A", "B"}, 0}, Nanoseconds{2.5}, Scaled{2.5e9, 1e9, 2}, 0.1 + 0.2,
                          false, Value{nullptr}, std::int64_t{-9}, OutsideBytes{std::string("a\x00\xfe\"", 4)},
                          std::string("tab\t \"q\" \\ \x7f \u00b5")});
    kinds.rows.push_back({Value{}, Value{}, Value{}, Value{}, Value{}, Value{}, Value{}, Value{}, Value{}, Value{},
                          Value{}, Value{}, Value{}, Value{}});
    p.table("kinds", "kinds", kinds);
    p.end_document();
}

std::string printed(bool streaming, bool json, void (*render)(Printer&))
{
    std::ostringstream out;
    const PrinterOptions o{.json = json, .color = false};
    auto p = streaming ? make_streaming_printer(o, out) : make_printer(o, out);
    render(*p);
    return out.str();
}

}  // namespace

TEST_CASE("streaming JSON printer: the same bytes as the tree's, for every shape of document")
{
    const std::string tree = printed(false, true, every_shape);
    CHECK(printed(true, true, every_shape) == tree);
    // The held rows, then the made ones.
    CHECK(tree.find("\"n\": 100") < tree.find("\"n\": 0"));
    CHECK(tree.find("\"text\": \"xx\"") != std::string::npos);
}

TEST_CASE("text printer: rows made as they are printed align as held ones")
{
    const std::string text = printed(false, false, every_shape);
    CHECK(printed(true, false, every_shape) == text);
    CHECK(text.find("  N    TEXT\n"
                    "  100  held first\n"
                    "  0\n"
                    "  1    -\n"
                    "  2    xx\n") != std::string::npos);
}

TEST_CASE("qp list and cm list print the same bytes through the streaming printer")
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.lqpn = 0x11;
    q.type = 2;
    q.state = 3;
    q.rqpn = 0x12;
    q.sq_psn = 7;
    q.rq_psn = 8;
    q.pid = 42;
    q.comm = "ib_send_lat";
    kernel::KernelQp kernel_qp = q;
    kernel_qp.lqpn = 0x13;
    kernel_qp.pid.reset();
    kernel_qp.comm = "rdma_cm";
    static ops::QpListing listing;
    listing.qps = {q, kernel_qp};
    listing.held = {true};
    listing.consumers[1] = report::QpConsumer{"nvme_rdma", "192.0.2.1:1", "192.0.2.2:4420",
                                              decode::Decoded::named(3, "CONNECT"), "nvme0", "live", "nqn.x"};
    listing.notes.stalled_s = 1;
    health::QpVerdict v;
    v.qp = q;
    v.no_progress = true;
    v.notes = {"no progress"};
    listing.notes.verdicts = {v};
    const auto qps = [](Printer& p) {
        p.begin_document("qp list");
        render_kernel_qps(listing, p);
        p.end_document();
    };
    for (bool json : {false, true}) {
        INFO("json " << json);
        const std::string tree = printed(false, json, qps);
        CHECK(printed(true, json, qps) == tree);
        CHECK(tree.find("nvme0 (live)") != std::string::npos);
    }

    kernel::CmIdDump dump;
    dump.devices = {"rxe0"};
    kernel::KernelCmId id;
    id.dev_name = "rxe0";
    id.port = 1;
    id.lqpn = 0x11;
    id.state = 3;
    id.src = "192.0.2.1:7471";
    id.dst = "192.0.2.2:4420";
    id.id = 5;
    id.pid = 42;
    id.comm = "ib_send_lat";
    dump.ids = {id, id};
    static report::CmListReport cms;
    cms = ops::cm_list_report(dump, {});
    const auto cm = [](Printer& p) {
        p.begin_document("cm list");
        render_cm_list(cms, p);
        p.end_document();
    };
    for (bool json : {false, true}) {
        INFO("json " << json);
        CHECK(printed(true, json, cm) == printed(false, json, cm));
    }
}
