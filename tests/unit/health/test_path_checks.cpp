// `qpscope path`'s judgements of measured values: the round trip against
// the ACK timeout, and the MTU sweep (a hole, loss, nothing at all).
#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "src/health/path_checks.hpp"

using namespace qps;
using namespace qps::health;

TEST_CASE("path.ack_timeout: within, longer than the timer, timer off, code out of range")
{
    const Finding ok = check_ack_timeout(20.0, 14, 7);  // 67.1 ms timer
    CHECK(ok.id == "path.ack_timeout");
    CHECK(ok.status == Status::ok);
    CHECK(ok.summary.find("within the local ACK timeout") != std::string::npos);

    const Finding slow = check_ack_timeout(300.0, 5, 7);  // 131 us timer, 300 us round trip
    CHECK(slow.status == Status::warn);
    CHECK(slow.summary.find("longer than the local ACK timeout") != std::string::npos);
    CHECK(slow.summary.find("RETRY_EXC_ERR after 7 retries") != std::string::npos);
    // 2 x 300 us = 600 us: code 8 is 1.05 ms (code 7 is 524 us)
    CHECK(slow.fix.find("code 8 or more") != std::string::npos);

    const Finding off = check_ack_timeout(300.0, 0, 7);
    CHECK(off.status == Status::ok);
    CHECK(off.summary.find("off (code 0)") != std::string::npos);

    CHECK_THROWS_AS(check_ack_timeout(1.0, 32, 7), UsageError);
}

TEST_CASE("path.mtu: every size whole, a hole above 1024, loss in the middle, nothing arrives")
{
    std::vector<MtuProbe> all{{256, 10, 10}, {512, 10, 10}, {1024, 10, 10}, {2048, 10, 10}, {4096, 10, 10}};
    const Finding whole = check_path_mtu(all, 4096, 80);
    CHECK(whole.status == Status::ok);
    CHECK(whole.summary == "every size arrived, up to 4096 bytes (the port's active MTU 4096)");

    std::vector<MtuProbe> hole{{4096, 10, 0}, {256, 10, 10}, {512, 10, 10}, {1024, 10, 10}, {2048, 10, 0}};
    const Finding h = check_path_mtu(hole, 4096, 80);
    CHECK(h.status == Status::fail);
    CHECK(h.summary == "1024 bytes arrive, 2048 do not (0 of 10): something between here and there carries less "
                       "than 2048 + 80 header bytes");
    CHECK(h.fix.find("--mtu 1024") != std::string::npos);
    CHECK(h.fix.find("netdev MTU to 1104") != std::string::npos);
    CHECK(h.fix.find("at least 2128") != std::string::npos);

    std::vector<MtuProbe> lossy{{256, 10, 10}, {512, 10, 7}, {1024, 10, 10}};
    const Finding l = check_path_mtu(lossy, 1024, 80);
    CHECK(l.status == Status::warn);
    CHECK(l.summary.find("loss on the path, not its MTU") != std::string::npos);

    std::vector<MtuProbe> none{{256, 10, 0}, {512, 10, 0}};
    const Finding n = check_path_mtu(none, 1024, 80);
    CHECK(n.status == Status::fail);
    CHECK(n.summary.find("RoCE packets do not reach the peer") != std::string::npos);
    CHECK(n.fix.find("UDP port 4791") != std::string::npos);
}
