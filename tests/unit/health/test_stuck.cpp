// Stuck QPs from the kernel's view: ERR/SQE, a destination QP that is gone,
// PSNs that did not move; and the doctor findings that name the owner.
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "src/health/stuck.hpp"
#include "unit/util.hpp"

using namespace qps::health;
using qps::kernel::KernelQp;
using qps::test::contains;

namespace {

KernelQp user_qp(std::uint32_t qpn, std::uint8_t state, std::optional<std::uint32_t> dest, std::uint32_t psn,
                 std::uint32_t pid = 4242, std::string comm = "ib_send_lat")
{
    KernelQp q;
    q.dev_name = "rxe0";
    q.port = 1;
    q.lqpn = qpn;
    q.type = 2;  // RC
    q.state = state;
    q.rqpn = dest;
    q.sq_psn = psn;
    q.rq_psn = psn;
    q.pid = pid;
    q.comm = std::move(comm);
    return q;
}

KernelQp gsi()
{
    KernelQp q;
    q.dev_name = "rxe0";
    q.port = 1;
    q.lqpn = 1;
    q.type = 1;
    q.state = 3;
    q.comm = "ib_core";
    return q;
}

}  // namespace

TEST_CASE("a healthy connected pair on one host: nothing stuck, kernel QPs left out")
{
    const std::vector<KernelQp> now{gsi(), user_qp(0x11, 3, 0x12, 100), user_qp(0x12, 3, 0x11, 100)};
    const std::vector<KernelQp> before{gsi(), user_qp(0x11, 3, 0x12, 90), user_qp(0x12, 3, 0x11, 90)};
    const auto v = judge_qps(now, before, 1.0);
    REQUIRE(v.size() == 2);
    for (const auto& q : v) {
        CHECK_FALSE(q.stuck);
        CHECK_FALSE(q.dest_missing);
        CHECK_FALSE(q.no_progress);
        CHECK(q.notes.empty());
    }
    const auto f = qp_findings(v, 1.0);
    REQUIRE(f.size() == 1);
    CHECK(f[0].id == "qp.summary");
    CHECK(f[0].summary == "2 user QPs of 1 process; none stuck");
}

TEST_CASE("the peer was killed: destination gone and no progress is stuck; either alone is not")
{
    const std::vector<KernelQp> now{user_qp(0x11, 3, 0x12, 100)};
    const auto one_sample = judge_qps(now, std::nullopt, 1.0);
    REQUIRE(one_sample.size() == 1);
    CHECK(one_sample[0].dest_missing);
    CHECK_FALSE(one_sample[0].no_progress);
    CHECK_FALSE(one_sample[0].stuck);
    CHECK(contains(one_sample[0].notes[0], "destination QP 0x12 is not on rxe0"));

    // Moving PSNs: a remote peer that answers.
    CHECK_FALSE(judge_qps(now, std::vector<KernelQp>{user_qp(0x11, 3, 0x12, 50)}, 1.0)[0].stuck);

    const auto v = judge_qps(now, std::vector<KernelQp>{user_qp(0x11, 3, 0x12, 100)}, 2.0);
    REQUIRE(v.size() == 1);
    CHECK(v[0].stuck);
    CHECK(v[0].no_progress);
    CHECK(contains(v[0].notes[1], "no progress in 2 s: SQ PSN 100 and RQ PSN 100 got no further"));

    const auto f = qp_findings(v, 2.0);
    REQUIRE(f.size() == 2);
    CHECK(f[0].id == "qp.stuck");
    CHECK(f[0].status == Status::warn);
    CHECK(f[0].summary == "QP 0x11 of pid 4242 (ib_send_lat) is stuck: destination QP 0x12 gone, no progress in 2 s");
    CHECK(contains(f[0].fix, "kill 4242"));
    CHECK(contains(f[0].why, "the owner may wait on it forever"));
    CHECK(f[1].summary == "1 user QP of 1 process; 1 stuck");
}

TEST_CASE("ERR and SQE are stuck on one sample, whoever the peer")
{
    const std::vector<KernelQp> now{user_qp(0x20, 6, 0x21, 7, 99, "ib_write_bw"), user_qp(0x21, 3, 0x20, 7, 99,
                                                                                       "ib_write_bw")};
    const auto v = judge_qps(now, std::nullopt, 1.0);
    REQUIRE(v.size() == 2);
    CHECK(v[0].stuck);
    CHECK(v[0].error_state);
    CHECK(contains(v[0].notes[0], "in ERR"));
    CHECK_FALSE(v[1].stuck);
    const auto f = qp_findings(v, 1.0);
    CHECK(f[0].summary == "QP 0x20 of pid 99 (ib_write_bw) is stuck: ERR");

    KernelQp sqe = user_qp(0x30, 5, std::nullopt, 1);
    sqe.type = 4;  // UD
    const auto u = judge_qps({sqe}, std::nullopt, 1.0);
    CHECK(u[0].stuck);
    CHECK(contains(u[0].notes[0], "in SQE"));
    CHECK_FALSE(u[0].dest_missing);
}

TEST_CASE("progress is the PSN's high mark moving on: retransmissions going back and forth are not progress")
{
    auto at = [](std::uint32_t sq, std::uint32_t rq) {
        KernelQp q = user_qp(0x11, 3, 0x12, 0);
        q.sq_psn = sq;
        q.rq_psn = rq;
        return std::vector<KernelQp>{q};
    };
    // A retry loop between the oldest unacknowledged PSN (1000) and the next (1128).
    const std::vector<std::vector<KernelQp>> retrying{at(1128, 7), at(1000, 7), at(1064, 7), at(1128, 7),
                                                      at(1010, 7), at(1128, 7)};
    const auto r = judge_qps(retrying, 0.5);
    REQUIRE(r.size() == 1);
    CHECK(r[0].no_progress);
    CHECK(r[0].stuck);

    // Real traffic: the high mark moves on, across the 24-bit wrap too.
    const std::vector<std::vector<KernelQp>> moving{at(0xfffff0, 7), at(0xfffffa, 7), at(0x000010, 7),
                                                    at(0x000100, 7)};
    CHECK_FALSE(judge_qps(moving, 0.5)[0].no_progress);
    // Only the RQ moves (a receiver): progress.
    const std::vector<std::vector<KernelQp>> receiving{at(5, 100), at(5, 200)};
    CHECK_FALSE(judge_qps(receiving, 0.5)[0].no_progress);
    // Two readings, the second back behind the first (a retransmission): no progress.
    CHECK(judge_qps(at(1000, 7), at(1128, 7), 1.0)[0].no_progress);
    // A QP that was not in RTS in every reading is not judged.
    KernelQp rtr = user_qp(0x11, 2, 0x12, 0);
    CHECK_FALSE(judge_qps({{rtr}, at(5, 5)}, 1.0)[0].no_progress);
}

TEST_CASE("a QP connected through rdma_cm carries its CM state and addresses in its notes")
{
    qps::kernel::KernelCmId cm;
    cm.dev_name = "rxe0";
    cm.lqpn = 0x20;
    cm.state = 6;  // DISCONNECT
    cm.src = "192.0.2.1:18515";
    cm.dst = "192.0.2.1:40000";
    const std::vector<KernelQp> now{user_qp(0x20, 6, 0x21, 7, 99, "ib_write_bw")};
    const auto v = judge_qps(now, std::nullopt, 1.0, {cm});
    REQUIRE(v.size() == 1);
    REQUIRE(v[0].cm_id);
    CHECK(v[0].notes.back() == "rdma_cm: DISCONNECT, 192.0.2.1:18515 -> 192.0.2.1:40000 (the connection was torn "
                               "down: the peer disconnected, or its process died)");
    // Another device's ID with the same QPN is not this QP's.
    cm.dev_name = "mlx5_0";
    CHECK_FALSE(judge_qps(now, std::nullopt, 1.0, {cm})[0].cm_id);
}
