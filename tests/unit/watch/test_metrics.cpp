#include <doctest/doctest.h>
#include <infiniband/verbs.h>
#include <map>
#include <sstream>

#include "formatters/prometheus.hpp"
#include "src/error.hpp"
#include "src/util/module.hpp"
#include "src/watch/exporter.hpp"
#include "src/watch/metrics.hpp"
#include "unit/formatters/sample_ports_report.hpp"

using namespace qps;
using namespace qps::watch;

namespace {

// "name{labels} value" lines of a text exposition, by series.
std::map<std::string, std::string> samples_of(const report::MetricSet& set)
{
    std::ostringstream text;
    formatters::render_metrics_text(set, text);
    std::map<std::string, std::string> out;
    std::istringstream in(text.str());
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.rfind(' ');
        out[line.substr(0, sp)] = line.substr(sp + 1);
    }
    return out;
}

kernel::KernelQp qp(std::uint32_t qpn, std::uint8_t state, std::optional<std::uint32_t> pid, std::string comm)
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.port = 1;
    q.lqpn = qpn;
    q.type = IBV_QPT_RC;
    q.state = state;
    q.pid = pid;
    q.comm = std::move(comm);
    return q;
}

}  // namespace

TEST_CASE("watch metrics: the port families are ports --format prometheus's, sample for sample")
{
    HostLook look;
    look.ports = test::sample_ports_report();
    report::MetricSet ports_only;
    report::add_ports_metrics(ports_only, look.ports);
    report::MetricSet watch_set;
    add_watch_metrics(watch_set, look, RecordTally{}, 1);
    const auto ports = samples_of(ports_only);
    const auto watched = samples_of(watch_set);
    REQUIRE(ports.size() > 10);
    for (const auto& [series, value] : ports) {
        INFO(series);
        REQUIRE(watched.count(series) == 1);
        CHECK(watched.at(series) == value);
    }
}

TEST_CASE("watch metrics: QPs by device, state, type and owner; records by kind; what a look could not read")
{
    HostLook look;
    look.qps = std::vector<kernel::KernelQp>{qp(17, IBV_QPS_RTS, 4242, "ib_write_bw"), qp(18, IBV_QPS_RTS, 4242, "ib_write_bw"),
                                             qp(19, IBV_QPS_ERR, 4242, "ib_write_bw"), qp(1, IBV_QPS_RTS, {}, "nvme_rdma")};
    RecordTally tally;
    WatchRecord r;
    r.kind = WatchKind::qp_created;
    tally.count(r);
    tally.count(r);
    r.kind = WatchKind::started;
    tally.count(r);
    report::MetricSet set;
    add_watch_metrics(set, look, tally, 7);
    const auto s = samples_of(set);
    CHECK(s.at(R"(qpscope_qps{device="rxe0",state="RTS",type="RC",pid="4242",owner="ib_write_bw"})") == "2");
    CHECK(s.at(R"(qpscope_qps{device="rxe0",state="ERR",type="RC",pid="4242",owner="ib_write_bw"})") == "1");
    CHECK(s.at(R"(qpscope_qps{device="rxe0",state="RTS",type="RC",pid="",owner="nvme_rdma"})") == "1");
    CHECK(s.at(R"(qpscope_watch_records_total{kind="qp_created"})") == "2");
    CHECK(s.at(R"(qpscope_watch_records_total{kind="started"})") == "1");
    CHECK(s.at(R"(qpscope_watch_records_total{kind="device_lost"})") == "0");  // every kind from the start
    CHECK(s.at("qpscope_watch_looks_total") == "7");
    CHECK(s.at(R"(qpscope_watch_look_ok{part="qps"})") == "1");
    CHECK(s.at(R"(qpscope_watch_look_ok{part="cm_ids"})") == "0");  // not read: no cm_ids series at all
    for (const auto& [series, value] : s)
        CHECK(series.rfind("qpscope_cm_ids", 0) != 0);
}

TEST_CASE("metric set: a clashing series is refused, counters stay exact beyond 2^53, outside bytes become UTF-8")
{
    report::MetricSet set;
    CHECK(set.add("qpscope_x_total", report::MetricType::counter, "x", {{"device", "a"}}, std::uint64_t{1}));
    CHECK_FALSE(set.add("qpscope_x_total", report::MetricType::counter, "x", {{"device", "a"}}, std::uint64_t{2}));
    CHECK(set.add("qpscope_x_total", report::MetricType::counter, "x", {{"device", "b"}},
                  std::uint64_t{18446744073709551615u}));
    CHECK(set.add("qpscope_y", report::MetricType::gauge, "y", {{"device", "rxe\xff"}}, 0.5));
    const auto s = samples_of(set);
    CHECK(s.at(R"(qpscope_x_total{device="a"})") == "1");
    CHECK(s.at(R"(qpscope_x_total{device="b"})") == "18446744073709551615");
    CHECK(s.at("qpscope_y{device=\"rxe\xef\xbf\xbd\"}") == "0.5");
    REQUIRE(set.families().size() == 2);
    CHECK(set.families()[0].samples.size() == 2);
}

TEST_CASE("--prometheus: PORT, ADDR:PORT, localhost; anything else one line naming it and what is valid")
{
    auto a = parse_listen_address("9100");
    CHECK(a.host == "127.0.0.1");
    CHECK(a.port == 9100);
    a = parse_listen_address("0.0.0.0:0");
    CHECK(a.host == "0.0.0.0");
    CHECK(a.port == 0);
    a = parse_listen_address("localhost:9");
    CHECK(a.host == "127.0.0.1");
    for (const char* bad : {"", "x", "9100x", "65536", "-1", "host:9100", "1.2.3:9", "[::1]:9100", "127.0.0.1:"}) {
        INFO(bad);
        try {
            parse_listen_address(bad);
            FAIL("accepted");
        } catch (const UsageError& e) {
            const std::string m = e.what();
            CHECK(m.find(std::string("'") + bad + "'") != std::string::npos);
            CHECK(m.find("PORT 0 to 65535") != std::string::npos);
        }
    }
}

TEST_CASE("--prometheus: a port another socket holds is refused before the watch starts, naming the address")
{
    util::add_module_dir(QPSCOPE_TEST_MODULE_DIR);  // qpscope-watch.so, the server's half
    // The exporter on a free port; a second one on the same port cannot listen.
    MetricsExporter first(parse_listen_address("127.0.0.1:0"));
    const std::string url = first.url();
    REQUIRE(url.rfind("http://127.0.0.1:", 0) == 0);
    const std::string port = url.substr(17, url.find('/', 17) - 17);
    try {
        MetricsExporter second(parse_listen_address("127.0.0.1:" + port));
        FAIL("a second exporter listened on the same port");
    } catch (const OperationError& e) {
        const std::string m = e.what();
        CHECK(m.find("127.0.0.1:" + port) != std::string::npos);
        CHECK(m.find("EADDRINUSE") != std::string::npos);
    }
}
