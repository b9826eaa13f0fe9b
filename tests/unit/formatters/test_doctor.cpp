// doctor's layout: text grouped by host, device and port with why and fix
// under a warning or failure; JSON findings with every member; --quiet lines.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "formatters/doctor.hpp"
#include "unit/util.hpp"

using namespace qps;
using qps::test::contains;

namespace {

ops::DoctorReport doctor_sample()
{
    ops::DoctorReport r;
    r.interval_s = 1;
    qps::Finding modules = qps::ok("kernel.modules", "ib_core, ib_uverbs and rdma_ucm are loaded");
    modules.status = qps::Status::ok;
    qps::Finding down;
    down.id = "port.state";
    down.status = qps::Status::fail;
    down.device = "rxe0";
    down.port = 1;
    down.summary = "rxe0 port 1 is DOWN (physical state DISABLED), netdev veth0 is down";
    down.seen = {{"state", "DOWN (1)"}, {"netdev", "veth0 (down)"}};
    down.why = "a port that is not ACTIVE carries no RDMA traffic";
    down.fix = "bring the netdev up: ip link set veth0 up";
    qps::Finding stuck;
    stuck.id = "qp.stuck";
    stuck.status = qps::Status::warn;
    stuck.device = "rxe0";
    stuck.port = 1;
    stuck.summary = "QP 0x11 of pid 42 (ib_write_bw) is stuck: ERR";
    stuck.why = "in ERR";
    stuck.fix = "kill 42";
    r.findings = {modules, down, stuck};
    return r;
}

std::string doctor_text(const ops::DoctorReport& r, bool strict)
{
    std::ostringstream out;
    auto p = formatters::make_printer({.json = false, .color = false}, out);
    p->begin_document("doctor");
    formatters::render_doctor(r, strict, *p);
    p->end_document();
    return out.str();
}

nlohmann::json doctor_json(const ops::DoctorReport& r, bool strict)
{
    std::ostringstream out;
    auto p = formatters::make_printer({.json = true, .color = false}, out);
    p->begin_document("doctor");
    formatters::render_doctor(r, strict, *p);
    p->end_document();
    return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("doctor text: groups, one line per finding, why and fix under the bad ones, the verdict")
{
    const std::string t = doctor_text(doctor_sample(), false);
    INFO(t);
    CHECK(t.find("host\n  ok    kernel.modules  : ib_core, ib_uverbs and rdma_ucm are loaded\n") == 0);
    CHECK(contains(t, "rxe0 port 1\n  FAIL  port.state      : rxe0 port 1 is DOWN"));
    CHECK(contains(t, "\n          why           : a port that is not ACTIVE carries no RDMA traffic\n"));
    CHECK(contains(t, "\n          fix           : bring the netdev up: ip link set veth0 up\n"));
    CHECK(contains(t, "  WARN  qp.stuck        : QP 0x11"));
    CHECK(contains(t, "1 failed, 1 warning, 1 ok, 0 skipped: NOT healthy"));
    CHECK_FALSE(contains(t, "DOWN (1)"));  // the raw values are JSON's
}

TEST_CASE("doctor JSON: every finding with id, status, device, port, seen; counts and the verdict")
{
    const auto j = doctor_json(doctor_sample(), false);
    CHECK(j["command"] == "doctor");
    REQUIRE(j["findings"].size() == 3);
    const auto& host = j["findings"][0];
    CHECK(host["id"] == "kernel.modules");
    CHECK(host["device"].is_null());
    CHECK(host["port"].is_null());
    CHECK_FALSE(host.contains("why"));
    const auto& port = j["findings"][1];
    CHECK(port["status"] == "fail");
    CHECK(port["device"] == "rxe0");
    CHECK(port["port"] == 1);
    CHECK(port["seen"]["netdev"] == "veth0 (down)");
    CHECK(port["fix"] == "bring the netdev up: ip link set veth0 up");
    CHECK(j["counts"] == nlohmann::json({{"ok", 1}, {"warn", 1}, {"fail", 1}, {"skipped", 0}}));
    CHECK(j["healthy"] == false);
    CHECK(j["strict"] == false);
}

TEST_CASE("doctor --quiet: a line per failure, warnings too under --strict, nothing when healthy")
{
    const auto lines = formatters::doctor_failure_lines(doctor_sample(), false);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "FAIL port.state rxe0 port 1: rxe0 port 1 is DOWN (physical state DISABLED), netdev veth0 is "
                      "down; fix: bring the netdev up: ip link set veth0 up");
    const auto strict = formatters::doctor_failure_lines(doctor_sample(), true);
    REQUIRE(strict.size() == 2);
    CHECK(strict[1] == "WARN qp.stuck rxe0 port 1: QP 0x11 of pid 42 (ib_write_bw) is stuck: ERR; fix: kill 42");

    ops::DoctorReport healthy = doctor_sample();
    healthy.findings.resize(1);
    CHECK(formatters::doctor_failure_lines(healthy, true).empty());
    CHECK(ops::doctor_exit_code(healthy, true) == 0);
    CHECK(ops::doctor_exit_code(doctor_sample(), false) == 1);
    healthy.findings.push_back(doctor_sample().findings[2]);  // a warning
    CHECK(ops::doctor_exit_code(healthy, false) == 0);
    CHECK(ops::doctor_exit_code(healthy, true) == 1);
}
