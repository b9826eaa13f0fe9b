#include <doctest/doctest.h>
#include <infiniband/verbs.h>

#include "formatters/top.hpp"
#include "src/decode/port.hpp"
#include "src/watch/top.hpp"

using namespace qps;
using namespace qps::watch;
using namespace std::chrono_literals;

namespace {

const std::chrono::steady_clock::time_point top_t0{};

kernel::KernelQp top_qp(std::uint32_t qpn, std::uint32_t sq_psn, std::uint32_t rq_psn, std::string comm)
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.port = 1;
    q.lqpn = qpn;
    q.rqpn = qpn + 1;
    q.type = IBV_QPT_RC;
    q.state = IBV_QPS_RTS;
    q.sq_psn = sq_psn;
    q.rq_psn = rq_psn;
    q.pid = 4000 + qpn;
    q.comm = std::move(comm);
    return q;
}

HostLook top_look(std::vector<kernel::KernelQp> qps, std::uint64_t sent)
{
    HostLook l;
    report::DeviceReport d;
    d.name = "rxe0";
    report::PortReport p;
    p.port = 1;
    p.state = decode::port_state(IBV_PORT_ACTIVE);
    p.hw_counters.present = true;
    p.hw_counters.counters.push_back(kernel::Counter{"sent_pkts", sent, ""});
    p.hw_counters.counters.push_back(kernel::Counter{"rcvd_pkts", sent / 2, ""});
    d.ports.push_back(p);
    l.ports.devices.push_back(d);
    l.qps = std::move(qps);
    return l;
}

}  // namespace

TEST_CASE("top: PSN steps across the 24-bit wrap")
{
    CHECK(psn_steps(10, 15) == 5);
    CHECK(psn_steps(0xFFFFFE, 3) == 5);
    CHECK(psn_steps(7, 7) == 0);
}

TEST_CASE("top: the busiest QP first, rates from two looks, port packet rates; the first look has none")
{
    TopBuilder b;
    b.look(top_look({top_qp(17, 100, 0, "idle"), top_qp(18, 100, 0, "ib_write_bw"), top_qp(19, 0, 50, "server")}, 1000),
           top_t0);
    REQUIRE(b.model().qps.size() == 3);
    CHECK_FALSE(b.model().qps[0].psn_per_second);
    CHECK_FALSE(b.model().ports.at(0).sent_per_second);
    // Two seconds later: 18 moved 4000 send PSNs, 19 1000 receive PSNs, 17 none.
    b.look(top_look({top_qp(17, 100, 0, "idle"), top_qp(18, 4100, 0, "ib_write_bw"), top_qp(19, 0, 1050, "server")}, 5000),
           top_t0 + 2s);
    const auto& m = b.model();
    REQUIRE(m.qps.size() == 3);
    CHECK(m.qps[0].qpn == 18);
    CHECK(m.qps[0].owner == "ib_write_bw");
    CHECK(*m.qps[0].psn_per_second == doctest::Approx(2000));
    CHECK(m.qps[1].qpn == 19);
    CHECK(*m.qps[1].psn_per_second == doctest::Approx(500));
    CHECK(m.qps[2].qpn == 17);
    CHECK(*m.ports.at(0).sent_per_second == doctest::Approx(2000));
    CHECK(*m.ports.at(0).received_per_second == doctest::Approx(1000));
    CHECK(m.looks == 2);
}

TEST_CASE("top: the events panel keeps the last records, not the port rates; a look without QPs says why")
{
    TopBuilder b(3);
    for (int i = 0; i < 5; ++i) {
        WatchRecord r;
        r.kind = i == 2 ? WatchKind::port_rate : WatchKind::qp_created;
        r.qpn = static_cast<std::uint32_t>(i);
        b.record(r);
    }
    REQUIRE(b.model().events.size() == 3);
    CHECK(*b.model().events.front().qpn == 1);
    CHECK(*b.model().events.back().qpn == 4);
    HostLook l = top_look({}, 0);
    l.qps.reset();
    l.qps_error = "EPROTONOSUPPORT";
    b.look(l, top_t0);
    const auto lines = formatters::top_lines(b.model(), "01:02:03 UTC", 100, 30);
    bool said = false;
    for (const auto& line : lines)
        said = said || line.find("QPs: not readable: EPROTONOSUPPORT") != std::string::npos;
    CHECK(said);
}

TEST_CASE("top: lines fit the screen; the busiest QP is the first row under the QP header")
{
    TopBuilder b;
    std::vector<kernel::KernelQp> qps;
    for (std::uint32_t i = 0; i < 50; ++i)
        qps.push_back(top_qp(100 + i, 0, 0, "many"));
    b.look(top_look(qps, 0), top_t0);
    for (auto& q : qps)
        q.sq_psn = q.lqpn == 140 ? 9000 : 10;
    b.look(top_look(qps, 0), top_t0 + 1s);
    const auto lines = formatters::top_lines(b.model(), "01:02:03 UTC", 60, 24);
    CHECK(lines.size() <= 24);
    std::size_t header = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        CHECK(lines[i].size() <= 60);
        if (lines[i].rfind("DEVICE", 0) == 0)
            header = i;
    }
    REQUIRE(header > 0);
    CHECK(lines[header + 1].find("140") != std::string::npos);
    bool more = false;
    for (const auto& l : lines)
        more = more || l.rfind("... ", 0) == 0;
    CHECK(more);  // 50 QPs do not fit in 24 rows: the rest counted
}
