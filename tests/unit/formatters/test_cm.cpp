// `cm list`'s layout: one row per ID, null (text "-") for what the kernel
// did not give, the owner's name as bytes from outside, and a line instead
// of an empty table (JSON: an empty array).
#include <doctest/doctest.h>
#include <sstream>

#include "formatters/cm.hpp"
#include "src/json.hpp"
#include "src/report/cm_id.hpp"
#include "unit/util.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

std::string cm_render(const report::CmListReport& r, bool json)
{
    std::ostringstream out;
    auto p = make_printer({.json = json, .color = false}, out);
    p->begin_document("cm list");
    render_cm_list(r, *p);
    p->end_document();
    return out.str();
}

report::CmListReport cm_sample_report()
{
    kernel::KernelCmId listener;
    listener.dev_name = "rxe0";
    listener.id = 0;
    listener.port_space = 0x106;
    listener.state = 8;
    listener.src = "0.0.0.0:18515";
    listener.pid = 100;
    listener.comm = "ib_send_lat";
    kernel::KernelCmId conn = listener;
    conn.port = 1;
    conn.id = 1;
    conn.state = 5;
    conn.lqpn = 0x11;
    conn.src = "192.0.2.1:18515";
    conn.dst = "192.0.2.1:40000";
    conn.comm = "odd\xff\x1b";
    report::CmListReport r;
    r.ids = {report::cm_id_report(listener), report::cm_id_report(conn)};
    r.host_total = 2;
    return r;
}

}  // namespace

TEST_CASE("cm list JSON: every member, null where the kernel gave nothing, comm_raw beside comm")
{
    const Json j = Json::parse(cm_render(cm_sample_report(), true));
    CHECK(j["command"] == "cm list");
    REQUIRE(j["cm_ids"].size() == 2);
    const Json& l = j["cm_ids"][0];
    CHECK(l["device"] == "rxe0");
    CHECK(l["port"].is_null());
    CHECK(l["id"] == 0);
    CHECK(l["state"] == Json{{"raw", 8}, {"name", "LISTEN"}});
    CHECK(l["phase"] == "listening");
    CHECK(l["port_space"] == Json{{"raw", 0x106}, {"name", "TCP"}});
    CHECK(l["local"] == "0.0.0.0:18515");
    CHECK(l["remote"].is_null());
    CHECK(l["qpn"].is_null());
    CHECK(l["pid"] == 100);
    CHECK(l["comm"] == "ib_send_lat");
    const Json& c = j["cm_ids"][1];
    CHECK(c["port"] == 1);
    CHECK(c["qpn"] == Json{{"raw", 0x11}, {"name", "0x11"}});
    CHECK(c["remote"] == "192.0.2.1:40000");
    CHECK(c["comm"] == "odd\xef\xbf\xbd\x1b");
    CHECK(c["comm_raw"] == "6f6464ff1b");
}

TEST_CASE("cm list text: a table with '-' for what is not there, escaped names")
{
    const std::string t = cm_render(cm_sample_report(), false);
    CHECK(test::contains(t, "2 rdma_cm ID(s)"));
    CHECK(test::contains(t, "DEVICE  PORT  ID  STATE"));
    CHECK(test::contains(t, "LISTEN (8)"));
    CHECK(test::contains(t, "listening"));
    CHECK(test::contains(t, "TCP (262)"));
    CHECK(test::contains(t, "0x11 (17)"));
    CHECK(test::contains(t, "odd\\xff\\e"));
    CHECK_FALSE(test::contains(t, "\x1b"));
}

TEST_CASE("cm list: no ID is a line (text) and an empty array (JSON), not an error")
{
    report::CmListReport none;
    CHECK(cm_render(none, false) == "no rdma_cm IDs on this host\n");
    const Json j = Json::parse(cm_render(none, true));
    CHECK(j["cm_ids"] == Json::array());

    report::CmListReport filtered;
    filtered.filtered = true;
    filtered.host_total = 3;
    CHECK(cm_render(filtered, false) == "no rdma_cm ID matches (3 on this host)\n");

    auto some = cm_sample_report();
    some.filtered = true;
    some.host_total = 5;
    CHECK(test::contains(cm_render(some, false), "2 of 5 rdma_cm ID(s) on this host"));
}
