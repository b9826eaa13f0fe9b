// The kernel's view of every QP on the host, as `rdma resource show qp`
// (iproute2, rdma/res-qp.c) reads it: RDMA netlink (NETLINK_RDMA), client
// RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET dumped once per device. This sees
// the QPs of every process and of the kernel itself (e.g. the GSI QP1 that
// ib_core creates on each RoCE/IB port), which verbs cannot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct nlmsghdr;

namespace qps::kernel {

struct KernelQp {
    std::uint32_t dev_index = 0;
    std::string dev_name;
    std::uint32_t port = 0;  // 0 while the QP has no port yet (before RESET→INIT)
    std::uint32_t lqpn = 0;
    std::optional<std::uint32_t> rqpn;  // RC and UC only
    // RDMA_NLDEV_ATTR_RES_TYPE: ib_qp_type (SMI 0, GSI 1, RC 2, UC 3, UD 4,
    // RAW_PACKET 8, XRC_INI 9, XRC_TGT 10, DRIVER 0xff); equal to
    // ibv_qp_type for the types verbs has.
    std::uint8_t type = 0;
    std::uint8_t state = 0;                       // ib_qp_state (= ibv_qp_state values)
    std::optional<std::uint8_t> path_mig_state;   // RC, UC, XRC only
    std::optional<std::uint32_t> sq_psn, rq_psn;  // rq_psn: RC and UC only
    std::optional<std::uint32_t> pdn;             // user QPs only (restrack id of the PD)
    // Owner: kernel QPs carry the name of the kernel module that made them
    // (RDMA_NLDEV_ATTR_RES_KERN_NAME, e.g. "ib_core"); user QPs carry a pid,
    // and list_kernel_qps() fills comm from /proc/PID/comm (empty when the
    // process is gone). parse_res_qp_message() leaves comm empty for those.
    std::optional<std::uint32_t> pid;
    std::string comm;
    // RDMA_NLDEV_ATTR_DRIVER key/value pairs in the kernel's order; numbers
    // as decimal, or as 0x… hex when the driver asks for hex.
    std::vector<std::pair<std::string, std::string>> driver;
};

// Dumps all QPs of all RDMA devices (first the device list, RDMA_NLDEV_CMD_GET,
// then RDMA_NLDEV_CMD_RES_QP_GET per device: the kernel dumps QPs one device
// at a time). Asks for driver-internal QPs too (RDMA_NLDEV_ATTR_DRIVER_DETAILS,
// which kernels before 6.7 ignore). Every receive is bounded (5 s) and so is
// the number of datagrams.
// Throws SystemError naming the call on socket/bind/send/receive failure
// (EPROTONOSUPPORT or EPERM: "kernel without RDMA netlink support?"), and on an
// error reported by the kernel (NLMSG_ERROR, or a negative status in
// NLMSG_DONE) with that errno; OperationError on a malformed or unexpected reply.
std::vector<KernelQp> list_kernel_qps();

// The kernel resumes a multi-part QP dump by position, not by QP number
// (nldev.c res_get_common_dumpit: cb->args[0] counts entries): QPs
// destroyed between two parts shift the rest, and the QPs at the resume
// point are left out of that dump though they live. A reader that compares
// dumps (qpscope watch) would call them destroyed, and created again a look
// later. confirm_missing() takes `now`, a dump, and `before`, the last one:
// while QPs of `before` are missing from `now`, it dumps again (`relist`,
// at most `tries` times) and puts back each missing QP a later dump has, with
// that dump's reading. A QP is gone only when every dump lacks it. Returns
// the dumps taken.
int confirm_missing(std::vector<KernelQp>& now, const std::vector<KernelQp>& before,
                    const std::function<std::vector<KernelQp>()>& relist, int tries = 2);

// An RDMA device and one of its ports as RDMA netlink names them
// (RDMA_NLDEV_CMD_GET, then RDMA_NLDEV_CMD_PORT_GET per device, as `rdma
// link show` reads them): the device's kernel index stays the same when it
// is renamed (`rdma dev set NAME name NEW`), and the port's netdev is the
// one the kernel ties to it now (attached, detached or renamed since).
struct RdmaLink {
    std::uint32_t dev_index = 0;
    std::string dev_name;
    std::uint32_t port = 0;
    std::string netdev;                        // "" when the port has none
    std::optional<std::uint32_t> netdev_index;  // the netdev's ifindex
};

// Every port of every RDMA device. A device that leaves between the device
// list and its port dump is left out. Throws as list_kernel_qps() does.
std::vector<RdmaLink> list_rdma_links();

// An rdma_cm ID (`rdma resource show cm_id`): the connection manager's view
// of a connection, whose state and addresses say where a QP's connection
// stands (its QP, when it has one, by lqpn).
struct KernelCmId {
    std::string dev_name;                 // empty for an ID not bound to a device yet
    std::uint32_t port = 0;
    std::optional<std::uint32_t> lqpn;
    std::uint32_t port_space = 0;         // RDMA_PS_TCP 0x106, RDMA_PS_UDP 0x111, RDMA_PS_IB 0x13f, ...
    std::uint8_t state = 0;               // the kernel's enum rdma_cm_state (src/decode/cm_state.hpp)
    std::string src, dst;                 // "192.0.2.1:18515", "[fe80::1]:4791", "" when unset
    std::optional<std::uint32_t> id;      // RDMA_NLDEV_ATTR_RES_CM_IDN: `rdma resource show cm_id cm-idn N`
    // Owner: a pid (comm from /proc/PID/comm, as for QPs), or the kernel
    // module of a kernel user's ID (RDMA_NLDEV_ATTR_RES_KERN_NAME).
    std::optional<std::uint32_t> pid;
    std::string comm;
};
// Every rdma_cm ID of every device (RDMA_NLDEV_CMD_RES_CM_ID_GET, dumped per
// device); errors as list_kernel_qps().
std::vector<KernelCmId> list_cm_ids();
// The same, with the names of the devices it asked (every RDMA device of
// the host, in the kernel's order), so a caller can tell an unknown device
// from one without IDs.
struct CmIdDump {
    std::vector<std::string> devices;
    std::vector<KernelCmId> ids;
};
CmIdDump dump_cm_ids();
void parse_res_cm_id_message(const nlmsghdr* nlh, std::vector<KernelCmId>& out);
// The kernel's rdma_cm_state name ("CONNECT", "DISCONNECT", ...), as
// iproute2's rdma names them: decode::cm_state_table's; "UNKNOWN(0x..)"
// past the table.
std::string cm_state_name(std::uint8_t state);

// A per-QP counter (`rdma statistic qp show`): counters bound to QPs, in
// auto mode (one per QP type or pid) or bound by hand. Only drivers that
// implement counter binding (mlx5, ionic) ever have any.
struct QpCounter {
    std::string dev_name;
    std::uint32_t port = 0;
    std::uint32_t id = 0;
    std::uint32_t mode = 0;                 // rdma_nl_counter_mode: 0 none, 1 auto, 2 manual
    std::optional<std::uint32_t> pid;
    std::vector<std::uint32_t> qpns;        // the QPs bound to it
    std::vector<std::pair<std::string, std::uint64_t>> values;  // name, value in the kernel's order
};
struct QpCounters {
    std::vector<QpCounter> counters;
    std::vector<std::string> unsupported;   // devices whose kernel refused the dump (EOPNOTSUPP, EINVAL)
};
// RDMA_NLDEV_CMD_STAT_GET with RDMA_NLDEV_ATTR_STAT_RES = RES_QP, dumped per
// device; errors as list_kernel_qps().
QpCounters list_qp_counters();
// Parses one reply message of that dump and appends its counters.
void parse_stat_qp_message(const nlmsghdr* nlh, std::vector<QpCounter>& out);

// Parses one RDMA_NLDEV_CMD_RES_QP_GET reply message (the whole message is
// nlh->nlmsg_len bytes) and appends its QPs to `out`. Validates the type and
// length of every attribute it reads, skips unknown attributes, never reads
// past nlmsg_len. Throws OperationError ("malformed RDMA netlink reply: …")
// on a malformed message, and then leaves `out` unchanged.
void parse_res_qp_message(const nlmsghdr* nlh, std::vector<KernelQp>& out);

}  // namespace qps::kernel
