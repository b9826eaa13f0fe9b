// The one way qpscope makes its verbs objects: protection domains, CQs,
// registered memory and QPs (ibv_create_qp_ex, or rdma_cm's
// rdma_create_qp_ex for a QP that lives on an rdma_cm ID). `qp create`'s
// holder, ping-pong, bw, path, the mesh and the probes all create through
// here; no file outside src/verbs calls ibv_create_qp*, ibv_alloc_pd or
// ibv_reg_mr. Each maker throws a SystemError naming the verb, the device
// and what to try, except create_qp, whose failures the callers explain
// (a cap search, a retry without inline data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <string>

#include "src/verbs/handles.hpp"

namespace qps::verbs {

// What a QP is made of: ibv_qp_init_attr_ex's members that qpscope sets.
struct QpSpec {
    ibv_qp_type type = IBV_QPT_RC;
    ibv_cq* send_cq = nullptr;
    ibv_cq* recv_cq = nullptr;
    ibv_qp_cap cap{1, 1, 1, 1, 0};  // max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data
    bool sq_sig_all = false;        // every send completes, not only the signaled ones
    // Receives come from this shared receive queue: the QP has no receive
    // queue of its own (max_recv_wr and max_recv_sge are not asked for).
    ibv_srq* srq = nullptr;
    // XRC_RECV: the XRC domain it lives in (it has no PD, no CQs, no send
    // queue: its receives land in the XRC SRQ a sender names).
    ibv_xrcd* xrcd = nullptr;
    // The extended send verbs (ibv_wr_start .. ibv_wr_complete) for these
    // operations (IBV_QP_EX_WITH_*): asked with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
    // ibv_qp_to_qp_ex then gives the ibv_qp_ex. 0: the legacy QP only.
    std::uint64_t send_ops = 0;
};

// ibv_qp_init_attr_ex for `spec` on `pd`: comp_mask IBV_QP_INIT_ATTR_PD
// (libibverbs then takes the plain ibv_create_qp path of every provider),
// plus IBV_QP_INIT_ATTR_SEND_OPS_FLAGS when spec.send_ops asks for the
// extended send verbs (the provider's create_qp_ex then), or for XRC_RECV
// IBV_QP_INIT_ATTR_XRCD with the domain and no PD.
ibv_qp_init_attr_ex qp_init_attr_ex(ibv_pd* pd, const QpSpec& spec);

// The QP, or null with errno set; `granted` (when given) receives the caps
// the device granted (it may round them up, never down).
QueuePair create_qp(ibv_pd* pd, const QpSpec& spec, ibv_qp_cap* granted = nullptr);
// The same on an rdma_cm ID: the QP lives on `id` (id->qp; rdma_connect and
// rdma_accept move it on), and rdma_cm moves it to INIT. Null with errno set.
ibv_qp* create_cm_qp(rdma_cm_id* id, ibv_pd* pd, const QpSpec& spec, ibv_qp_cap* granted = nullptr);

// A basic shared receive queue: `max_wr` receives of `max_sge` entries for
// every QP made with it; `limit` > 0 arms SRQ_LIMIT_REACHED for when fewer
// than that many receives are left (0: not armed). ibv_create_srq ignores
// a limit: create_srq arms it with ibv_modify_srq once the SRQ exists.
struct SrqSpec {
    std::uint32_t max_wr = 16;
    std::uint32_t max_sge = 1;
    std::uint32_t limit = 0;
    // An XRC SRQ (IBV_SRQT_XRC): of this domain, its completions on `cq`;
    // senders name it by its SRQ number (ibv_get_srq_num).
    ibv_xrcd* xrcd = nullptr;
    ibv_cq* cq = nullptr;
};
ibv_srq_init_attr_ex srq_init_attr_ex(ibv_pd* pd, const SrqSpec& spec);  // srq_limit 0
// The SRQ, armed, or null with errno set (the SRQ destroyed again when the
// device refused the limit); `granted` (when given) receives what the
// device granted, as ibv_query_srq reads it (max_wr and max_sge may be
// rounded up) and the limit.
SharedReceiveQueue create_srq(ibv_pd* pd, const SrqSpec& spec, ibv_srq_attr* granted = nullptr);

// An XRC domain on the file `fd` (ibv_open_xrcd, O_CREAT): every process
// that opens the same file on the device shares the domain. Null with
// errno set.
ibv_xrcd_init_attr xrcd_init_attr(int fd);
XrcDomain open_xrcd(ibv_context* ctx, int fd);
// The XRC_RECV QP `qpn` of `xrcd`, opened (ibv_open_qp) so that another
// process can query or modify it; null with errno set.
ibv_qp_open_attr qp_open_attr(ibv_xrcd* xrcd, std::uint32_t qpn);
QueuePair open_xrc_qp(ibv_context* ctx, ibv_xrcd* xrcd, std::uint32_t qpn);

// Throw SystemError("ibv_alloc_pd(rxe0)", ...).
ProtectionDomain alloc_pd(ibv_context* ctx, const std::string& device);
// `hint`: what to try when the device refuses the depth.
CompletionQueue create_cq(ibv_context* ctx, std::uint32_t depth, const std::string& device,
                          const std::string& hint = "");
// An extended CQ (ibv_create_cq_ex: polled with ibv_start_poll /
// ibv_end_poll), held as the ibv_cq that ibv_cq_ex_to_cq gives (everything
// legacy, ibv_poll_cq and the QP's attributes among them, takes that);
// `ex` receives the ibv_cq_ex. Null, errno set and `ex` null, when the
// device refuses an extended CQ (extended_refused): the caller makes a
// legacy one. Throws like create_cq for any other failure.
CompletionQueue create_cq_ex(ibv_context* ctx, std::uint32_t depth, const std::string& device, ibv_cq_ex*& ex,
                             const std::string& hint = "");
// The errors with which a device says it has no extended verbs (no
// create_cq_ex / create_qp_ex, or not these send ops): EOPNOTSUPP, ENOSYS,
// EINVAL. The caller falls back to the legacy object.
bool extended_refused(int err);
// Registers [addr, addr + bytes) with `access` (IBV_ACCESS_*); a refusal
// names the locked-memory limit.
MemoryRegion reg_mr(ibv_pd* pd, void* addr, std::size_t bytes, int access);

}  // namespace qps::verbs
