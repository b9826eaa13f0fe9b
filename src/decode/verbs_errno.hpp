// What an errno means for the verb or rdma_cm call that returned it, and
// what to check, most likely first (';'-separated). From the kernel paths
// the calls go through: drivers/infiniband/core/uverbs_cmd.c, verbs.c
// (ib_modify_qp_is_ok, the AV/GID resolution of _ib_modify_qp), umem.c
// (ib_umem_get: RLIMIT_MEMLOCK, get_user_pages), cma.c for rdma_cm, and
// rdma-core libibverbs/librdmacm.
#pragma once

#include <array>
#include <cerrno>
#include <string_view>

namespace qps::decode {

struct VerbInfo {
    std::string_view name;     // as --verb takes it
    std::string_view call;     // "ibv_modify_qp()"
    std::string_view returns;  // how the call reports the error
};
inline constexpr std::array<VerbInfo, 16> verb_table{{
    {"open_device", "ibv_open_device()", "returns NULL and sets errno"},
    {"alloc_pd", "ibv_alloc_pd()", "returns NULL and sets errno"},
    {"reg_mr", "ibv_reg_mr()", "returns NULL and sets errno"},
    {"create_cq", "ibv_create_cq()", "returns NULL and sets errno"},
    {"create_qp", "ibv_create_qp()", "returns NULL and sets errno"},
    {"modify_qp", "ibv_modify_qp()", "returns the errno itself (not -1)"},
    {"query_qp", "ibv_query_qp()", "returns the errno itself (not -1)"},
    {"post_send", "ibv_post_send()", "returns the errno itself and sets *bad_wr"},
    {"post_recv", "ibv_post_recv()", "returns the errno itself and sets *bad_wr"},
    {"create_ah", "ibv_create_ah()", "returns NULL and sets errno"},
    {"query_port", "ibv_query_port()", "returns the errno itself"},
    {"query_gid", "ibv_query_gid()", "returns -1 (errno is not always set)"},
    {"rdma_resolve_addr", "rdma_resolve_addr()", "returns -1 and sets errno; later, RDMA_CM_EVENT_ADDR_ERROR with status -errno"},
    {"rdma_resolve_route", "rdma_resolve_route()", "returns -1 and sets errno; later, RDMA_CM_EVENT_ROUTE_ERROR with status -errno"},
    {"rdma_connect", "rdma_connect()", "returns -1 and sets errno; later, RDMA_CM_EVENT_REJECTED or UNREACHABLE"},
    {"rdma_accept", "rdma_accept()", "returns -1 and sets errno"},
}};

struct VerbErrno {
    std::string_view verb;
    int err;
    std::string_view meaning;
    std::string_view checks;
};
inline constexpr std::array<VerbErrno, 27> verb_errno_table{{
    {"open_device", EACCES, "the user may not open /dev/infiniband/uverbsN",
     "is the user in the group owning /dev/infiniband/uverbs* (ls -l)?;qpscope doctor names the fix"},
    {"open_device", ENODEV, "the device went away or its driver is unbound", "does rdma link show it?;dmesg for the driver"},
    {"alloc_pd", ENOMEM, "the device or kernel ran out of PD resources", "how many processes hold the device (qpscope doctor)?"},
    {"reg_mr", ENOMEM,
     "pinning the pages would pass RLIMIT_MEMLOCK (the usual cause without CAP_IPC_LOCK), or the device ran out of MR "
     "resources",
     "ulimit -l: is the memlock limit at least the registered size (unlimited for RDMA jobs)?;limits.conf or the "
     "systemd/Slurm unit's LimitMEMLOCK;qpscope doctor checks memlock"},
    {"reg_mr", EFAULT, "the address range is not mapped in this process", "is addr..addr+length allocated and mapped?"},
    {"reg_mr", EINVAL, "bad access flags (REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE) or a zero length",
     "does the access include local_write when it has remote_write/remote_atomic?;is length > 0?"},
    {"reg_mr", EPERM, "the pages may not be pinned (e.g. a read-only mapping asked for write access)",
     "is the buffer writable when the access has local_write?"},
    {"create_cq", EINVAL, "cqe above the device's max_cqe, or a bad completion vector",
     "is cqe at most max_cqe (ibv_devinfo -v)?;is comp_vector below num_comp_vectors?"},
    {"create_cq", ENOMEM, "the device or kernel ran out of CQ resources", "ulimit -l;how many CQs exist already?"},
    {"create_qp", EINVAL,
     "a capability above the device's limits (max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, "
     "max_inline_data), a QP type the device does not support, or a CQ/SRQ from another context",
     "are max_send_wr/max_recv_wr at most max_qp_wr and the SGEs at most max_sge (ibv_devinfo -v)?;is "
     "max_inline_data within what the device supports?;does the device support the QP type?"},
    {"create_qp", ENOMEM, "the device or kernel ran out of QP resources, or of locked memory for the queues",
     "ulimit -l;how many QPs exist (qpscope qp list)?"},
    {"create_qp", EPERM, "a raw packet QP needs CAP_NET_RAW", "run as root or with CAP_NET_RAW for IBV_QPT_RAW_PACKET"},
    {"modify_qp", EINVAL,
     "the kernel refused the attributes: most often an attribute mask that does not match the transition "
     "(ib_modify_qp_is_ok: a required bit missing or a forbidden one set, or the QP not in the state the "
     "transition starts from), then an address vector that does not resolve (sgid_index of no or the wrong GID "
     "type, no GRH on RoCE), a path MTU or rd-atomic value above the port's or device's, a pkey_index or port_num "
     "out of range",
     "is the QP in the state the transition starts from (qpscope qp query)?;does attr_mask have exactly the bits the "
     "transition requires (qpscope explain qp-attr-mask)?;on RoCE, is ah_attr.is_global set and sgid_index a GID "
     "of the wanted type?;is path_mtu at most the port's active MTU?;are max_rd_atomic/max_dest_rd_atomic within "
     "the device's limits?"},
    {"modify_qp", ENOMEM, "no memory for the address resolution or the driver's context", "dmesg"},
    {"modify_qp", ETIMEDOUT, "resolving the destination MAC (RoCE, ARP/ND for the dgid) timed out",
     "is the dgid's IP address reachable from this netdev (ping)?;is the route through the RDMA netdev?"},
    {"modify_qp", ENETUNREACH, "no route to the dgid's IP address from the RDMA netdev", "ip route get <peer IP>"},
    {"modify_qp", EHOSTUNREACH, "the dgid's IP address did not answer ARP/ND", "is the peer up and on the subnet?"},
    {"query_qp", EINVAL, "the attribute mask asked for something the driver cannot report", "ask for fewer attributes"},
    {"post_send", ENOMEM, "the send queue is full: more work requests outstanding than max_send_wr",
     "are send completions polled (a signaled one at least every max_send_wr)?;raise max_send_wr"},
    {"post_send", EINVAL,
     "a work request the QP cannot take: the QP not in RTS, too many SGEs, inline data too large, or an opcode "
     "not valid for the QP type",
     "is the QP in RTS (qpscope qp query)?;num_sge at most max_send_sge?;inline length within max_inline_data?"},
    {"post_recv", ENOMEM, "the receive queue is full: more receives outstanding than max_recv_wr",
     "are receive completions polled?;raise max_recv_wr"},
    {"post_recv", EINVAL, "too many SGEs, or the QP is in RESET or uses an SRQ", "num_sge at most max_recv_sge?;an SRQ's QP posts to the SRQ"},
    {"create_ah", EINVAL, "the address does not resolve: sgid_index of no GID, or no GRH on RoCE",
     "is sgid_index a valid GID of the port (qpscope ports)?;is is_global set on RoCE?"},
    {"rdma_resolve_addr", EADDRNOTAVAIL, "no RDMA device has the source address, or none was given and no route exists",
     "is the IP address on an RDMA netdev (rdma link)?;ip route get <peer IP>"},
    {"rdma_resolve_addr", ETIMEDOUT, "the peer's address did not resolve (ARP/ND) within the timeout",
     "is the peer reachable (ping) on the RDMA netdev?"},
    {"rdma_resolve_route", ETIMEDOUT, "no path record (InfiniBand: the subnet manager did not answer)",
     "is a subnet manager running (sminfo)?;is the port ACTIVE?"},
    {"rdma_connect", ECONNREFUSED, "the peer rejected the connection: nothing listens on that port, or it refused",
     "is the server listening on that address and port?;do both sides agree on private data?"},
}};

// The row for `verb` and `err`, or nullptr: what `explain errno --verb`
// prints, and what a failed call in qpscope's own flow adds to its error.
constexpr const VerbErrno* find_verb_errno(std::string_view verb, int err)
{
    for (const auto& v : verb_errno_table)
        if (v.verb == verb && v.err == err)
            return &v;
    return nullptr;
}

}  // namespace qps::decode
