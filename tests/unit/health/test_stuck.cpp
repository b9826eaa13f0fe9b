// Stuck QPs from the kernel's view: ERR/SQE, a destination QP that is gone,
// PSNs that did not move; and the doctor findings that name the owner.
#include <doctest/doctest.h>
#include <set>
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

TEST_CASE("a healthy connected pair on one host: nothing stuck, the GSI QP left out")
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
    CHECK(f[0].summary == "2 user QPs of 1 process, no kernel consumer's QPs; none stuck");
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
    CHECK(f[1].summary == "1 user QP of 1 process, no kernel consumer's QPs; 1 stuck");
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

namespace {

// An RC QP of nvme-rdma: created through rdma_cm (its owner "rdma_cm", no
// pid), its rdma_cm ID's owner the consumer.
KernelQp nvme_qp(std::uint32_t qpn, std::uint8_t state, std::uint32_t psn)
{
    KernelQp q = user_qp(qpn, state, 0x99, psn);
    q.pid.reset();
    q.comm = "rdma_cm";
    return q;
}

qps::kernel::KernelCmId nvme_id(std::uint32_t qpn)
{
    qps::kernel::KernelCmId c;
    c.dev_name = "rxe0";
    c.port = 1;
    c.lqpn = qpn;
    c.state = 9;  // RDMA_CM_CONNECT
    c.src = "192.0.2.1:50000";
    c.dst = "192.0.2.2:4420";
    c.comm = "nvme_rdma";
    return c;
}

}  // namespace

TEST_CASE("a kernel consumer's QPs are judged: counted by consumer, stuck in ERR with its recovery and dmesg named")
{
    const std::vector<KernelQp> now{gsi(), nvme_qp(0x40, 3, 10), nvme_qp(0x41, 6, 10), user_qp(0x11, 3, 0x12, 5),
                                    user_qp(0x12, 3, 0x11, 5)};
    const auto v = judge_qps(now, std::nullopt, 1.0, {nvme_id(0x40), nvme_id(0x41)});
    REQUIRE(v.size() == 4);  // not the GSI QP
    CHECK(v[0].qp.lqpn == 0x40);
    CHECK_FALSE(v[0].stuck);
    CHECK(v[1].stuck);
    CHECK(v[1].error_state);
    CHECK(contains(v[1].notes[0], "in ERR: a work request failed; the kernel's nvme_rdma got the failed completion "
                                  "and recovers by itself: it starts error recovery"));

    const auto f = qp_findings(v, 1.0);
    REQUIRE(f.size() == 2);
    CHECK(f[0].summary == "QP 0x41 of the kernel's nvme_rdma is stuck: ERR");
    CHECK(contains(f[0].why, "I/O of NVMe over Fabrics host (nvme-rdma) through it waits until it recovers or gives up"));
    CHECK(contains(f[0].fix, "`dmesg | grep -i nvme | qpscope explain --log -`"));
    CHECK(contains(f[0].fix, "`qpscope path 192.0.2.2`"));
    CHECK(contains(f[0].fix, "storage.nvme_rdma"));
    CHECK_FALSE(contains(f[0].fix, "kill"));
    CHECK(f[1].summary == "2 user QPs of 1 process, 2 kernel QPs (nvme_rdma); 1 stuck");

    // Without its rdma_cm ID the QP's own owner names it, and an unknown consumer's next step is its log.
    const auto alone = judge_qps({nvme_qp(0x41, 6, 10)}, std::nullopt, 1.0);
    CHECK(contains(alone[0].notes[0], "the kernel's rdma_cm got the failed completion: what it does next is in its own log"));
    CHECK(qp_findings(alone, 1.0)[1].summary == "0 user QPs of 0 processes, 1 kernel QP (rdma_cm); 1 stuck");
}

TEST_CASE("a kernel QP whose PSNs stop while its peer's QP is gone is stuck like a process's")
{
    const std::vector<KernelQp> before{nvme_qp(0x40, 3, 10)};
    const std::vector<KernelQp> now{nvme_qp(0x40, 3, 10)};
    // The target on this host (its address is one of ours) and its QP gone.
    const auto v = judge_qps(now, before, 2.0, {nvme_id(0x40)}, std::set<std::string>{"127.0.0.1", "192.0.2.2"});
    REQUIRE(v.size() == 1);
    CHECK(v[0].stuck);
    const auto f = qp_findings(v, 2.0);
    CHECK(f[0].summary == "QP 0x40 of the kernel's nvme_rdma is stuck: destination QP 0x99 gone, no progress in 2 s");
    CHECK(f[0].seen.back() == std::pair<std::string, std::string>{"remote", "192.0.2.2:4420"});
    // progress: not stuck
    CHECK_FALSE(judge_qps(now, std::vector<KernelQp>{nvme_qp(0x40, 3, 5)}, 2.0, {nvme_id(0x40)})[0].stuck);
    // Not knowing the host's addresses, a destination that is not local counts as gone.
    CHECK(judge_qps(now, before, 2.0, {nvme_id(0x40)})[0].stuck);
}

TEST_CASE("an idle kernel QP to a target on another host is healthy: its destination is named, not called gone")
{
    // The lab's first CI run of 96-nvmeof: nvme_rdma's three idle queues to
    // 192.0.2.2:4420 (keep-alive every 5 s) made no progress in doctor's 1 s.
    const std::vector<KernelQp> before{nvme_qp(0x40, 3, 10)};
    const std::vector<KernelQp> now{nvme_qp(0x40, 3, 10)};
    const auto v = judge_qps(now, before, 1.0, {nvme_id(0x40)}, std::set<std::string>{"127.0.0.1", "192.0.2.1"});
    REQUIRE(v.size() == 1);
    CHECK(v[0].no_progress);
    CHECK_FALSE(v[0].dest_missing);
    CHECK_FALSE(v[0].stuck);
    CHECK(v[0].remote_peer == "192.0.2.2:4420");
    CHECK(contains(v[0].notes[0], "destination QP 0x99 is on 192.0.2.2:4420, another host: only that host can say "
                                  "whether it lives ('qpscope qp list' there, 'qpscope path 192.0.2.2' from here)"));
    CHECK(qp_findings(v, 1.0).back().summary == "0 user QPs of 0 processes, 1 kernel QP (nvme_rdma); none stuck");
    // In ERR it is stuck wherever its peer is.
    CHECK(judge_qps({nvme_qp(0x40, 6, 10)}, std::nullopt, 1.0, {nvme_id(0x40)},
                    std::set<std::string>{"192.0.2.1"})[0].stuck);
    // An IPv6 destination: the brackets and the port are not part of the address.
    auto id6 = nvme_id(0x40);
    id6.dst = "[2001:db8::2]:4420";
    CHECK(judge_qps(now, before, 1.0, {id6}, std::set<std::string>{"2001:db8::2"})[0].stuck);
    {
        const std::vector<std::vector<KernelQp>> readings{before, now};
        const std::vector<qps::kernel::KernelCmId> ids{nvme_id(0x40)};
        const QpJudge remote(readings, 1.0, ids, std::set<std::string>{"192.0.2.1"});
        const auto f = remote.facts(now[0]);
        REQUIRE(f);
        CHECK(f->no_progress);
        CHECK_FALSE(f->dest_missing);  // its destination is on another host
        CHECK_FALSE(f->stuck);
        const QpJudge local(readings, 1.0, ids, std::set<std::string>{"192.0.2.2"});
        CHECK(local.facts(now[0])->dest_missing);
        CHECK(local.facts(now[0])->stuck);
    }
    CHECK(judge_qps(now, before, 1.0, {id6}, std::set<std::string>{"2001:db8::1"})[0].remote_peer == id6.dst);
}

TEST_CASE("a QP with neither pid nor kernel name is a process's the kernel does not name here, not the kernel's")
{
    // In a PID namespace below the host's the kernel gives no pid for another
    // namespace's process (Linux 5.5 on), and no kernel module's name either.
    KernelQp outside = user_qp(0x30, 6, 0x31, 5);
    outside.pid.reset();
    outside.comm.clear();
    const auto v = judge_qps({outside, nvme_qp(0x40, 3, 10)}, std::nullopt, 1.0, {nvme_id(0x40)},
                             std::set<std::string>{"192.0.2.1"});
    REQUIRE(v.size() == 2);
    CHECK(v[0].stuck);
    CHECK(contains(v[0].notes[0], "the owner got the failed completion"));  // a process's words, not a consumer's
    const auto nested = qp_findings(v, 1.0, true);
    REQUIRE(nested.size() == 2);
    CHECK(nested[0].summary == "QP 0x30 of a process the kernel gives no pid for (outside this PID namespace, or "
                               "exiting) is stuck: ERR");
    CHECK(contains(nested[0].fix, "nsenter -t 1 -p qpscope qp list"));
    CHECK_FALSE(contains(nested[0].fix, "dmesg"));
    CHECK(nested[1].summary == "0 user QPs of 0 processes, 1 kernel QP (nvme_rdma), 1 QP of processes outside this "
                               "PID namespace; 1 stuck");
    CHECK(contains(nested[1].why, "gives pids only for this namespace's processes"));
    CHECK(nested[1].seen.back() == std::pair<std::string, std::string>{"pid_namespace", "nested"});
    // On the host's namespace such a QP's process is exiting.
    const auto host = qp_findings(v, 1.0, false);
    CHECK(contains(host[1].summary, "1 QP of exiting processes"));
    CHECK(host[1].why.empty());
}

TEST_CASE("readings: a dump slower than the interval skips the slots it overran")
{
    using namespace std::chrono;
    const steady_clock::time_point t0{};
    const auto ms = [](int n) { return duration_cast<steady_clock::duration>(milliseconds(n)); };
    CHECK(next_reading_slot(t0 + ms(100), t0 + ms(40), ms(100)) == t0 + ms(100));  // ahead: kept
    CHECK(next_reading_slot(t0 + ms(100), t0 + ms(100), ms(100)) == t0 + ms(200));
    CHECK(next_reading_slot(t0 + ms(100), t0 + ms(350), ms(100)) == t0 + ms(400));  // 100..300 overran
}

TEST_CASE("QpJudge: the verdicts of judge_qps one QP at a time, linear in the QPs")
{
    // 20,000 connected pairs idle in RTS over three readings, every tenth
    // QP's peer gone and one in ERR: a look-up of each QP in a list would
    // take minutes here.
    std::vector<std::vector<KernelQp>> readings(3);
    for (std::uint32_t i = 0; i < 20000; ++i) {
        const std::uint32_t qpn = 0x100 + i, peer = i % 10 == 0 ? 0xffffff : 0x100 + (i ^ 1);
        for (auto& r : readings)
            r.push_back(user_qp(qpn, i == 7 ? 6 : 3, peer, 50, 4242 + i % 3));
    }
    readings.back().insert(readings.back().begin(), gsi());
    readings.back()[5].sq_psn = 60;  // QP 0x104 moved on
    const auto all = judge_qps(readings, 1.0);
    REQUIRE(all.size() == 20000);
    const QpJudge judge(readings, 1.0);
    CHECK_FALSE(judge.judge(readings.back().front()));  // the GSI QP: left out
    CHECK_FALSE(judge.facts(readings.back().front()));
    std::size_t stuck = 0, no_progress = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto v = judge.judge(readings.back()[i + 1]);
        REQUIRE(v);
        CHECK(v->qp.lqpn == all[i].qp.lqpn);
        CHECK(v->stuck == all[i].stuck);
        CHECK(v->no_progress == all[i].no_progress);
        CHECK(v->notes == all[i].notes);
        // facts(): the same findings without the words.
        const auto f = judge.facts(readings.back()[i + 1]);
        REQUIRE(f);
        CHECK(f->error_state == v->error_state);
        CHECK(f->dest_missing == v->dest_missing);
        CHECK(f->no_progress == v->no_progress);
        CHECK(f->stuck == v->stuck);
        stuck += v->stuck;
        no_progress += v->no_progress;
    }
    CHECK(stuck == 2000 + 1);             // the 2,000 whose peer is gone, and QP 0x107 in ERR
    CHECK(no_progress == 20000 - 1 - 1);  // all but QP 0x107 (not in RTS) and QP 0x104 (moved on)
}
