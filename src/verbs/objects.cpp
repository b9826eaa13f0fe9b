#include "src/verbs/objects.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>

#include "src/error.hpp"

namespace qps::verbs {

ibv_qp_init_attr_ex qp_init_attr_ex(ibv_pd* pd, const QpSpec& spec)
{
    ibv_qp_init_attr_ex a{};
    a.qp_type = spec.type;
    a.send_cq = spec.send_cq;
    a.recv_cq = spec.recv_cq;
    a.cap = spec.cap;
    a.sq_sig_all = spec.sq_sig_all ? 1 : 0;
    if (spec.srq) {
        a.srq = spec.srq;
        a.cap.max_recv_wr = 0;
        a.cap.max_recv_sge = 0;
    }
    if (spec.type == IBV_QPT_XRC_RECV) {
        // A receive-only QP of a domain: no PD, CQs or queues of its own.
        a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
        a.xrcd = spec.xrcd;
        a.send_cq = nullptr;
        a.recv_cq = nullptr;
        a.srq = nullptr;
        a.cap = {};
        return a;
    }
    if (spec.type == IBV_QPT_XRC_SEND) {  // a sender only: no receive queue
        a.cap.max_recv_wr = 0;
        a.cap.max_recv_sge = 0;
    }
    a.comp_mask = IBV_QP_INIT_ATTR_PD;
    a.pd = pd;
    if (spec.send_ops) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = spec.send_ops;
    }
    return a;
}

QueuePair create_qp(ibv_pd* pd, const QpSpec& spec, ibv_qp_cap* granted)
{
    ibv_qp_init_attr_ex a = qp_init_attr_ex(pd, spec);
    ibv_context* ctx = spec.type == IBV_QPT_XRC_RECV && spec.xrcd ? spec.xrcd->context : pd->context;
    QueuePair qp(ibv_create_qp_ex(ctx, &a));
    if (qp && granted)
        *granted = a.cap;
    return qp;
}

ibv_qp* create_cm_qp(rdma_cm_id* id, ibv_pd* pd, const QpSpec& spec, ibv_qp_cap* granted)
{
    ibv_qp_init_attr_ex a = qp_init_attr_ex(pd, spec);
    if (rdma_create_qp_ex(id, &a) != 0)
        return nullptr;
    if (granted)
        *granted = a.cap;
    return id->qp;
}

ibv_srq_init_attr_ex srq_init_attr_ex(ibv_pd* pd, const SrqSpec& spec)
{
    ibv_srq_init_attr_ex a{};
    a.attr.max_wr = spec.max_wr;
    a.attr.max_sge = spec.max_sge;
    a.srq_type = IBV_SRQT_BASIC;
    a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
    a.pd = pd;
    if (spec.xrcd) {
        a.srq_type = IBV_SRQT_XRC;
        a.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
        a.xrcd = spec.xrcd;
        a.cq = spec.cq;
    }
    return a;
}

ibv_xrcd_init_attr xrcd_init_attr(int fd)
{
    ibv_xrcd_init_attr a{};
    a.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
    a.fd = fd;
    a.oflags = O_CREAT;
    return a;
}

XrcDomain open_xrcd(ibv_context* ctx, int fd)
{
    ibv_xrcd_init_attr a = xrcd_init_attr(fd);
    return XrcDomain(ibv_open_xrcd(ctx, &a));
}

ibv_qp_open_attr qp_open_attr(ibv_xrcd* xrcd, std::uint32_t qpn)
{
    ibv_qp_open_attr a{};
    a.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE;
    a.qp_num = qpn;
    a.xrcd = xrcd;
    a.qp_type = IBV_QPT_XRC_RECV;
    return a;
}

QueuePair open_xrc_qp(ibv_context* ctx, ibv_xrcd* xrcd, std::uint32_t qpn)
{
    ibv_qp_open_attr a = qp_open_attr(xrcd, qpn);
    return QueuePair(ibv_open_qp(ctx, &a));
}

SharedReceiveQueue create_srq(ibv_pd* pd, const SrqSpec& spec, ibv_srq_attr* granted)
{
    ibv_srq_init_attr_ex a = srq_init_attr_ex(pd, spec);
    SharedReceiveQueue srq(ibv_create_srq_ex(spec.xrcd ? spec.xrcd->context : pd->context, &a));
    if (!srq)
        return srq;
    if (spec.limit > 0) {
        ibv_srq_attr arm{};
        arm.srq_limit = spec.limit;
        if (int rc = ibv_modify_srq(srq.get(), &arm, IBV_SRQ_LIMIT); rc != 0) {
            srq.reset();
            errno = rc;
            return srq;
        }
        a.attr.srq_limit = spec.limit;
    }
    if (granted) {
        // What the device made: a provider may round max_wr up (rxe: 4 -> 7)
        // without writing it back into the create's attributes.
        *granted = a.attr;
        ibv_srq_attr now{};
        if (ibv_query_srq(srq.get(), &now) == 0)
            *granted = now;
    }
    return srq;
}

ProtectionDomain alloc_pd(ibv_context* ctx, const std::string& device)
{
    ProtectionDomain pd(ibv_alloc_pd(ctx));
    if (!pd)
        throw SystemError(fmt::format("ibv_alloc_pd({})", device), errno);
    return pd;
}

CompletionQueue create_cq(ibv_context* ctx, std::uint32_t depth, const std::string& device, const std::string& hint)
{
    CompletionQueue cq(ibv_create_cq(ctx, static_cast<int>(depth), nullptr, nullptr, 0));
    if (!cq)
        throw SystemError(fmt::format("ibv_create_cq({}, {} entries)", device, depth), errno, hint);
    return cq;
}

bool extended_refused(int err) { return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL; }

CompletionQueue create_cq_ex(ibv_context* ctx, std::uint32_t depth, const std::string& device, ibv_cq_ex*& ex,
                             const std::string& hint)
{
    ibv_cq_init_attr_ex a{};
    a.cqe = depth;
    ex = ibv_create_cq_ex(ctx, &a);
    if (!ex) {
        const int err = errno;
        if (extended_refused(err)) {
            errno = err;
            return CompletionQueue();
        }
        throw SystemError(fmt::format("ibv_create_cq_ex({}, {} entries)", device, depth), err, hint);
    }
    return CompletionQueue(ibv_cq_ex_to_cq(ex));
}

MemoryRegion reg_mr(ibv_pd* pd, void* addr, std::size_t bytes, int access)
{
    MemoryRegion mr(ibv_reg_mr(pd, addr, bytes, access));
    if (!mr)
        throw SystemError(fmt::format("ibv_reg_mr({} bytes)", bytes), errno,
                          "is the locked-memory limit (ulimit -l) too low?");
    return mr;
}

}  // namespace qps::verbs
