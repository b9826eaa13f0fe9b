// The verbs calls of the ping-pong loops (src/perf/pingpong/loop.cpp): posting
// and polling through the legacy verbs (ibv_post_send, ibv_poll_cq) or the
// extended ones (ibv_wr_* on the QP's ibv_qp_ex, ibv_start_poll on the CQs'
// ibv_cq_ex, LinkResources::extended()), and the text of a failed
// completion. The hot calls are inline here so the loops inline them; the
// cold ones (a failure's text, reaping) are in post_poll.cpp.
#pragma once

#include <infiniband/verbs.h>
#include <string>

#include "src/error.hpp"
#include "src/perf/link_common.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf::pingpong {

// Throws CompletionError with the status's name and meaning ("a send
// completed with RETRY_EXC_ERR: ..."); a flush is marked as one.
[[gnu::cold, noreturn]] void wc_failed(const ibv_wc& wc, const char* what);

// A failed completion read between ibv_start_poll and ibv_end_poll: the
// same text as wc_failed's (status, wr_id, vendor error; the opcode is not
// valid in an error completion). The poll is ended first: rxe holds the
// CQ's lock until ibv_end_poll.
[[gnu::cold, noreturn]] void wc_failed_ex(ibv_cq_ex* cq, const char* what);

// After a flushed completion: the first completion left in the QP's queues
// whose error is not a flush is what put the QP in ERR (a send's
// RETRY_EXC_ERR behind a flushed receive); "" when none is left.
std::string first_cause(verbs::LinkResources& res);

// Reap signalled send completions without waiting; a failed one throws.
void reap_sends(ibv_cq* cq);
void reap_sends(ibv_cq_ex* cq);

[[gnu::always_inline]] inline void check_wc(const ibv_wc& wc, const char* what)
{
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
        wc_failed(wc, what);
}

[[gnu::always_inline]] inline void post_send(ibv_qp* qp, ibv_send_wr* wr)
{
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(qp, wr, &bad); rc != 0) [[unlikely]]
        throw SystemError("ibv_post_send", rc);
}

[[gnu::always_inline]] inline void post_recv(ibv_qp* qp, ibv_recv_wr* wr)
{
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(qp, wr, &bad); rc != 0) [[unlikely]]
        throw SystemError("ibv_post_recv", rc);
}

// Exactly one ibv_start_poll / ibv_end_poll pair a completion, never
// ibv_next_poll: before rdma-core v59 rxe's next_poll returning ENOENT,
// then end_poll, unlocks the CQ twice. start_poll returning ENOENT (empty)
// or an error has taken no lock: end_poll must not be called then.
[[gnu::always_inline]] inline int take_one(ibv_cq_ex* cq, const char* what)
{
    ibv_poll_cq_attr attr{};
    const int rc = ibv_start_poll(cq, &attr);
    if (rc != 0)
        return rc;
    if (cq->status != IBV_WC_SUCCESS) [[unlikely]]
        wc_failed_ex(cq, what);
    ibv_end_poll(cq);
    return 0;
}

// Posts the run's prepared WR `wr` (its remote address and data) with the
// extended verbs and `flags` (the signalled or the silent WR's send_flags):
// the op is the loop's, known at compile time. qpx->wr_id is the loop's to
// set once a run (the provider reads it and wr_flags in the builder and
// changes neither). rxe reads inline data only when wr_flags has
// IBV_SEND_INLINE (ibv_wr_set_inline_data alone stalls the QP), so the
// flags are the WR's.
template <Op op>
[[gnu::always_inline]] inline void post_ex(ibv_qp_ex* qpx, const ibv_send_wr& wr, unsigned flags)
{
    ibv_wr_start(qpx);
    qpx->wr_flags = flags;
    if constexpr (op == Op::send)
        ibv_wr_send(qpx);
    else if constexpr (op == Op::write)
        ibv_wr_rdma_write(qpx, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr);
    else if constexpr (op == Op::read)
        ibv_wr_rdma_read(qpx, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr);
    else if constexpr (op == Op::fadd)
        ibv_wr_atomic_fetch_add(qpx, wr.wr.atomic.rkey, wr.wr.atomic.remote_addr, wr.wr.atomic.compare_add);
    else
        ibv_wr_atomic_cmp_swp(qpx, wr.wr.atomic.rkey, wr.wr.atomic.remote_addr, wr.wr.atomic.compare_add,
                              wr.wr.atomic.swap);
    const ibv_sge& sge = *wr.sg_list;
    if (!one_sided(op) && (flags & IBV_SEND_INLINE))
        ibv_wr_set_inline_data(qpx, reinterpret_cast<void*>(sge.addr), sge.length);
    else
        ibv_wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
    if (int rc = ibv_wr_complete(qpx); rc != 0) [[unlikely]]
        throw SystemError("ibv_wr_complete", rc);
}

}  // namespace qps::perf::pingpong
