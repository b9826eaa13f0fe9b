// The holder's posts: `qp post` (sends, writes, reads, atomics, --count of
// them in one chain) and `qp post --recv`, the peer's receives when it is
// held here, and why sends ended in RNR_RETRY_EXC_ERR.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/error.hpp"
#include "src/ops/held_objects.hpp"
#include "src/ops/held_qps.hpp"
#include "src/qp/options.hpp"
#include "src/qp/rnr.hpp"
#include "src/qp/validate.hpp"

namespace qps::ops {

namespace {

Completion completion_of(const ibv_wc& wc) { return {wc.status, wc.vendor_err, wc.opcode, wc.byte_len, wc.qp_num}; }

// `n` receives of the whole buffer on `q`: into its SRQ when it has one,
// else its own receive queue, in one chain.
void post_receives_on(HeldQp& q, std::uint32_t n)
{
    std::vector<ibv_sge> sges(n, ibv_sge{reinterpret_cast<std::uintptr_t>(q.buffer.get()),
                                         static_cast<std::uint32_t>(q.buffer_size), q.mr->lkey});
    std::vector<ibv_recv_wr> wrs(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        wrs[i].wr_id = q.posted + i + 1;
        wrs[i].sg_list = &sges[i];
        wrs[i].num_sge = 1;
        wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (q.srq) {
        if (int rc = ibv_post_srq_recv(q.srq->srq.get(), wrs.data(), &bad); rc != 0)
            throw SystemError(fmt::format("ibv_post_srq_recv on SRQ {} ({} receives; it holds {})", q.srq->id, n,
                                          q.srq->granted.max_wr),
                              rc, "no more receives than the SRQ's max_wr may wait in it");
        q.srq->posted += n;
    } else if (int rc = ibv_post_recv(q.qp.get(), wrs.data(), &bad); rc != 0) {
        throw SystemError(fmt::format("ibv_post_recv on QP {:#x} ({} receives; it holds {})", q.qp->qp_num, n,
                                      q.granted.max_recv_wr),
                          rc, "the QP must be past RESET, and no more receives than its max_recv_wr may wait");
    }
    q.posted += n;
}

// Where a write, read or atomic aims: the buffer given in the request, else
// the peer's when this holder has it.
void aim_remote(std::uint64_t& remote_addr, std::uint32_t& rkey, std::string_view op, const Json& req, HeldQp* peer,
                std::uint32_t dest_qpn)
{
    if (req.contains("raddr") && req.contains("rkey")) {
        remote_addr = req["raddr"].get<std::uint64_t>();
        rkey = req["rkey"].get<std::uint32_t>();
    } else if (peer) {
        remote_addr = reinterpret_cast<std::uintptr_t>(peer->buffer.get());
        rkey = peer->mr->rkey;
    } else {
        throw UsageError(fmt::format("{} {}: the peer QP {:#x} is not held here; give {} and {}", given(Given::op), op,
                                     dest_qpn, given(Given::raddr), given(Given::rkey)));
    }
}

// The WR for `op`: a send first posts the peer's receives (when the peer is
// held here and has its own receive queue: an SRQ is the user's to fill,
// with `qp post --recv`), a write, read or atomic aims at the remote buffer
// (aim_remote); an atomic carries its operands.
void prepare_operation(ibv_send_wr& wr, qp::PostOp op, const Json& req, HeldQp* peer, std::uint32_t dest_qpn,
                       std::uint32_t count)
{
    wr.opcode = qp::post_wr_opcode(op);
    const std::string_view name = qp::post_op_name(op);
    if (op == qp::PostOp::send) {
        if (peer && !peer->srq)
            post_receives_on(*peer, count);
    } else if (qp::is_atomic(op)) {
        aim_remote(wr.wr.atomic.remote_addr, wr.wr.atomic.rkey, name, req, peer, dest_qpn);
        wr.wr.atomic.compare_add = req.value("compare_add", std::uint64_t{0});
        wr.wr.atomic.swap = req.value("swap", std::uint64_t{0});
    } else {
        aim_remote(wr.wr.rdma.remote_addr, wr.wr.rdma.rkey, name, req, peer, dest_qpn);
    }
}

// Refuses an atomic the QP, its device or the peer held here (the
// responder) cannot do (atomic_post_problem), before anything is posted.
void check_atomic(qp::PostOp op, const HeldQp& q, const ibv_qp_attr& attr, const ibv_qp_init_attr& init,
                  const HeldQp* peer, std::uint64_t remote_addr)
{
    qp::AtomicPostFacts f;
    f.op = op;
    f.qpn = q.qp->qp_num;
    f.type = init.qp_type;
    f.device = q.device->name;
    f.atomic_cap = q.device->atomic_cap;
    f.state = attr.qp_state;
    f.max_rd_atomic = attr.max_rd_atomic;
    f.remote_addr = remote_addr;
    if (peer) {
        ibv_qp_attr pa{};
        ibv_qp_init_attr pinit{};
        if (int rc = ibv_query_qp(peer->qp.get(), &pa, IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_DEST_RD_ATOMIC, &pinit);
            rc != 0)
            throw SystemError(fmt::format("ibv_query_qp({:#x})", peer->qp->qp_num), rc);
        f.target = qp::AtomicPostFacts::Target{peer->qp->qp_num, pa.qp_access_flags, pa.max_dest_rd_atomic};
    }
    if (const auto problem = qp::atomic_post_problem(f))
        throw UsageError(*problem);
}

// After sends to a peer held here: its receive completions (up to `count`,
// within 1 s), the first (or first failed) into the reply; each success
// counts as a receive taken from its SRQ.
void reap_peer_receives(HeldQp& peer, std::uint32_t count, Json& result)
{
    std::uint32_t reaped = 0;
    std::optional<Completion> shown;
    const auto start = std::chrono::steady_clock::now();
    while (reaped < count && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000)) {
        ibv_wc rwc{};
        const int n = ibv_poll_cq(peer.cq.get(), 1, &rwc);
        if (n <= 0) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        ++reaped;
        const Completion pc = completion_of(rwc);
        if (pc.status != IBV_WC_SUCCESS) {
            peer.last_error = pc;
            if (!shown || shown->status == IBV_WC_SUCCESS)
                shown = pc;
            continue;
        }
        if (peer.srq)
            ++peer.srq->consumed;
        if (!shown)
            shown = pc;
    }
    if (shown)
        result["peer_completion"] = completion_json(*shown);
    if (count > 1)
        result["peer_completions"] = reaped;
}

// `count` completions on `cq` (polled every 200 µs until `timeout`): the
// first failed one, else the last; how many came and how many succeeded.
struct Completions {
    std::optional<Completion> shown;
    std::uint32_t came = 0, ok = 0;
    double waited_ms = 0;
    bool failed_poll = false;
};

Completions wait_completions(ibv_cq* cq, std::uint32_t count, std::chrono::milliseconds timeout)
{
    Completions c;
    const auto start = std::chrono::steady_clock::now();
    while (c.came < count) {
        ibv_wc wc{};
        const int n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0) {
            c.failed_poll = true;
            break;
        }
        if (n == 0) {
            if (std::chrono::steady_clock::now() - start > timeout)
                break;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        ++c.came;
        const Completion got = completion_of(wc);
        if (got.status == IBV_WC_SUCCESS)
            ++c.ok;
        if (!c.shown || (c.shown->status == IBV_WC_SUCCESS))
            c.shown = got;  // the first failure stays
    }
    c.waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return c;
}

// Why the sends to `peer` ended in RNR_RETRY_EXC_ERR (qp::rnr_cause), from
// both QPs' attributes and what its SRQ (or receive queue) had.
std::string rnr_account(const HeldQp& q, const HeldQp& peer, std::uint32_t sends, std::uint32_t ok)
{
    ibv_qp_attr mine{}, theirs{};
    ibv_qp_init_attr init{};
    qp::RnrFacts f;
    f.sender_qpn = q.qp->qp_num;
    f.receiver_qpn = peer.qp->qp_num;
    if (ibv_query_qp(q.qp.get(), &mine, IBV_QP_RNR_RETRY, &init) == 0)
        f.rnr_retry = mine.rnr_retry;
    if (ibv_query_qp(peer.qp.get(), &theirs, IBV_QP_MIN_RNR_TIMER, &init) == 0)
        f.min_rnr_timer = theirs.min_rnr_timer;
    f.sends = sends;
    f.sends_ok = ok;
    if (peer.srq) {
        f.srq = qp::RnrFacts::Srq{peer.srq->id, peer.srq->granted.max_wr};
        f.receives_posted = peer.srq->posted;  // all told, its receives of these sends reaped already
        f.receives_taken = peer.srq->consumed;
    } else {
        f.receives_posted = sends;  // one each, posted with them
        f.receives_taken = ok;
    }
    return qp::rnr_cause(f);
}

}  // namespace

HeldQp* HeldQps::peer_held_here(const HeldQp& q, std::uint32_t dest_qpn)
{
    if (auto it = qps_.find(dest_qpn); it != qps_.end() && it->second->device == q.device)
        return it->second.get();
    return nullptr;
}

Json HeldQps::post_receives(HeldQp& q, const Json& req)
{
    const std::uint32_t count = req.value("count", 1u);
    const std::uint64_t room = q.srq ? q.srq->granted.max_wr : q.granted.max_recv_wr;
    if (count < 1 || count > room)
        throw UsageError(fmt::format("{} {} receives: {} holds at most {}", given(Given::count), count,
                                     q.srq ? fmt::format("SRQ {}", q.srq->id)
                                           : fmt::format("QP {:#x}'s receive queue", q.qp->qp_num),
                                     room));
    post_receives_on(q, count);
    Json result{{"qpn", q.qp->qp_num}, {"operation", "recv"}, {"count", count}, {"size", q.buffer_size}};
    if (q.srq)
        result["srq"] = Json{{"id", q.srq->id}, {"posted", q.srq->posted}, {"consumed", q.srq->consumed}};
    return result;
}

Json HeldQps::post(const Json& req)
{
    HeldQp& q = find(req);
    if (req.value("recv", false))
        return post_receives(q, req);
    const qp::PostOp op = qp::parse_post_op(req.value("operation", "send"));
    const std::string_view name = qp::post_op_name(op);
    const std::uint32_t size = req.value("size", qp::default_post_size);
    const std::uint32_t count = req.value("count", 1u);
    const auto timeout = std::chrono::milliseconds(req.value("timeout_ms", 5000u));
    if (size > q.buffer_size)
        throw UsageError(
            fmt::format("{} {} exceeds the QP's buffer of {} bytes", given(Given::size), size, q.buffer_size));
    if (qp::is_atomic(op) && (size != qp::atomic_operand_bytes || q.buffer_size < qp::atomic_operand_bytes))
        throw UsageError(fmt::format("{} {}: {} {} works on one {}-byte operand", given(Given::size), size,
                                     given(Given::op), name, qp::atomic_operand_bytes));
    if (count < 1 || count > q.granted.max_send_wr)
        throw UsageError(fmt::format("{} {}: QP {:#x}'s send queue holds {} (qp create --send-wr)", given(Given::count),
                                     count, q.qp->qp_num, q.granted.max_send_wr));

    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(q.qp.get(), &attr, IBV_QP_DEST_QPN | IBV_QP_STATE | IBV_QP_MAX_QP_RD_ATOMIC, &init);
        rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", q.qp->qp_num), rc);
    // The peer, when this holder has it too: receives for a send, remote
    // buffer for write/read and the atomics.
    HeldQp* peer = peer_held_here(q, attr.dest_qp_num);

    // An atomic's fetched value lands in the last 8 bytes of the buffer, so
    // the start of it (where the peer's atomics aim) stays the peer's
    // counter, also when both QPs post atomics at each other.
    std::uint8_t* local = q.buffer.get() + (qp::is_atomic(op) ? q.buffer_size - qp::atomic_operand_bytes : 0);
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(local), size, q.mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    if (qp::is_atomic(op)) {
        // The responder is the peer QP whatever the address; without a
        // given address the target is its buffer (page-aligned).
        check_atomic(op, q, attr, init, peer, req.value("raddr", std::uint64_t{0}));
        // Clear the old bytes, so a stale value can never pass for a
        // fetched one.
        std::memset(local, 0, qp::atomic_operand_bytes);
    }
    prepare_operation(wr, op, req, peer, attr.dest_qp_num, count);
    // `count` copies of the WR, in one chain.
    std::vector<ibv_send_wr> wrs(count, wr);
    for (std::uint32_t i = 0; i < count; ++i) {
        wrs[i].wr_id = q.posted + i + 1;
        wrs[i].next = i + 1 < count ? &wrs[i + 1] : nullptr;
    }
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(q.qp.get(), wrs.data(), &bad); rc != 0)
        throw SystemError(fmt::format("ibv_post_send({:#x}{})", q.qp->qp_num,
                                      count > 1 ? fmt::format(", {} WRs", count) : ""),
                          rc, "the QP must be in RTS (or SQD) to post sends");
    q.posted += count;

    const Completions got = wait_completions(q.cq.get(), count, timeout);
    Json result{{"qpn", q.qp->qp_num}, {"operation", std::string(name)}, {"size", size}, {"waited_ms", got.waited_ms}};
    if (count > 1) {
        result["count"] = count;
        result["completed"] = got.came;
        result["succeeded"] = got.ok;
    }
    if (qp::is_atomic(op)) {
        result["remote_addr"] = wr.wr.atomic.remote_addr;
        result["rkey"] = wr.wr.atomic.rkey;
    }
    if (got.failed_poll)
        throw SystemError("ibv_poll_cq", EIO);
    if (!got.shown) {
        result["timed_out"] = true;
        return result;
    }
    if (got.came < count)
        result["timed_out"] = true;
    const Completion c = *got.shown;
    if (c.status != IBV_WC_SUCCESS)
        q.last_error = c;
    result["completion"] = completion_json(c);
    if (qp::is_atomic(op) && c.status == IBV_WC_SUCCESS) {
        // The original 8 bytes at the target, in host order as the NIC
        // wrote them back.
        std::uint64_t fetched = 0;
        std::memcpy(&fetched, local, sizeof fetched);
        result["fetched"] = fetched;
    }
    if (peer && op == qp::PostOp::send) {  // drain the peer's receive completions
        reap_peer_receives(*peer, got.ok, result);
        if (c.status == IBV_WC_RNR_RETRY_EXC_ERR)
            result["rnr"] = rnr_account(q, *peer, count, got.ok);
    }
    return result;
}

}  // namespace qps::ops
