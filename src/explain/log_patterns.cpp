// The formats `explain --log` knows: one row per way a program prints an
// RDMA value, with a line in that program's real format (instantiated from
// the format string named in the comment, with made-up values).
// tests/unit/explain/log_corpus.txt holds more lines of each source, each
// with the format string it comes from. The regexes are RE2's syntax
// (src/explain/log_match.hpp: no lookaround, no backreference; "[[:space:]]"
// where std::regex's "\s" took a vertical tab too).
#include <array>

#include "src/explain/log.hpp"

namespace qps::explain {

namespace {

constexpr std::array<LogPattern, 47> patterns{{
    // NCCL src/transport/net_ib.cc: "NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d
    // vendor err %d (%s)%s%s%s%s" (newer releases print "status=%s(%d)" style names too).
    // Older NCCL: "NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d"; the
    // newest: "... with status=%s(%d) opcode=%s(%d) vendor_err=%u%s%s%s%s hca %s".
    {"nccl-error", "NCCL net_ib", Scan::regex, R"(\bGot completion from peer \S+ with error (\d+))", "wc-status", "",
     "NET/IB : Got completion from peer 10.0.0.2<34567> with error 12, opcode 0, len 0, vendor err 129"},
    {"nccl-status", "NCCL net_ib", Scan::regex, R"(\bstatus=(?:[^(= ]+\()?(\d+))", "wc-status", "",
     "NET/IB : Got completion from peer 10.0.0.2<58722> with status=12 opcode=0 len=0 vendor err 129 (Send) "
     "localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2"},
    {"nccl-opcode", "NCCL net_ib", Scan::regex, R"(\bopcode=(?:[^(= ]+\()?(\d+))", "wc-opcode", "",
     "NET/IB : Got completion from peer 10.0.0.2<58722> with status=5 opcode=128 len=0 vendor err 244 (Recv)"},
    {"nccl-vendor-err", "NCCL net_ib", Scan::regex, R"(\bvendor[ _]err[ =:]*(\d+))", "vendor-err", "",
     "NET/IB : Got completion from peer 10.0.0.2<58722> with status=12 opcode=0 len=0 vendor err 129 (Send)"},
    // UCX src/uct/ib/mlx5/ib_mlx5_log.c: "%s on %s:%d/%s (synd 0x%x vend 0x%x hw_synd %d/%d)", older
    // "Error on QP 0x%x wqe[%d]: %s (synd 0x%x vend 0x%x) opcode %s"; SPDK's mlx5 code prints the same pair.
    {"ucx-synd", "UCX/SPDK mlx5", Scan::regex, R"(\bsynd (0x[0-9a-f]+))", "mlx5-syndrome", "mlx5",
     "[1700000000.123456] [node1:4242 :0]   ib_mlx5_log.c:177  UCX  ERROR Transport retry count exceeded on "
     "mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)"},
    {"ucx-vendor-syndrome", "UCX/SPDK mlx5", Scan::regex, R"(\bvend (0x[0-9a-f]+))", "vendor-err", "mlx5",
     "[1700000000.123456] [node1:4242 :0]   ib_mlx5_log.c:177  UCX  ERROR Transport retry count exceeded on "
     "mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)"},
    // Linux drivers/infiniband/hw/mlx5/cq.c, mlx5_handle_error_cqe(): "WC error: %d, Message: %s" (the status
    // and ib_wc_status_msg()), after mlx5_ib_warn's "%s:%s:%d:(pid %d): ".
    {"kernel-wc-error", "Linux mlx5_ib", Scan::regex, R"(\bWC error: (\d+))", "wc-status", "",
     "mlx5_0:mlx5_handle_error_cqe:333:(pid 0): WC error: 12, Message: transport retry counter exceeded"},
    // Linux drivers/nvme/host/rdma.c and nvme/target/rdma.c: "%s for CQE 0x%p failed with status %s (%d)"
    {"kernel-nvme-status", "Linux nvme-rdma", Scan::regex, R"(\bfailed with status [^(]*\((\d+)\))", "wc-status", "",
     "nvme nvme0: SEND for CQE 0x00000000c7a3d2e1 failed with status transport retry counter exceeded (12)"},
    // perftest src/perftest_resources.c: " Failed status %d: wr_id %d syndrom 0x%x"
    {"perftest-status", "perftest", Scan::regex, R"(\bFailed status (\d+):)", "wc-status", "",
     " Failed status 12: wr_id 0 syndrom 0x81"},
    {"perftest-syndrom", "perftest", Scan::regex, R"(\bFailed status -?\d+: wr_id -?\d+ syndrom (0x[0-9a-f]+))", "vendor-err", "",
     " Failed status 12: wr_id 0 syndrom 0x81"},
    // Open MPI opal/mca/btl/openib/btl_openib_component.c: "error polling %s with status %s status number %d
    // for wr_id %llu opcode %d qp_idx %d" (later releases add "vendor error %d").
    {"openmpi-status-number", "Open MPI btl_openib", Scan::regex, R"(\bstatus number (\d+))", "wc-status", "",
     "[node1][[1234,1],0][btl_openib_component.c:3644:handle_wc] from node1 to: node2 error polling LP CQ with "
     "status RETRY EXCEEDED ERROR status number 12 for wr_id 1a2b3c opcode 0  vendor error 129 qp_idx 3"},
    {"openmpi-vendor-error", "Open MPI btl_openib", Scan::regex, R"(\bvendor error (\d+))", "vendor-err", "",
     "[node1][[1234,1],0][btl_openib_component.c:3644:handle_wc] from node1 to: node2 error polling LP CQ with "
     "status RETRY EXCEEDED ERROR status number 12 for wr_id 1a2b3c opcode 0  vendor error 129 qp_idx 3"},
    // rdma-core libibverbs/examples/rc_pingpong.c: "Failed status %s (%d) for wr_id %d"
    {"pingpong-status", "rdma-core examples", Scan::regex, R"(\bFailed status [^(]*\((\d+)\) for wr_id)",
     "wc-status", "", "Failed status transport retry counter exceeded (12) for wr_id 2"},
    // rdma_cm events and their status. rdma-core librdmacm/examples print rdma_event_str() ("RDMA_CM_EVENT_X"):
    // rping.c "cma event %s, error %d", "unhandled event: %s, ignoring"; cmatose.c "cmatose: event: %s, error:
    // %d"; udaddy.c "udaddy: event: %s, error: %d"; mckey.c "mckey: event: %s, error: %d" and "mckey: event: %s,
    // status: %d"; cmtime.c "RDMA_CM_EVENT_ADDR_ERROR, error: %d", "event: %s, error: %d", "Unhandled event: %d
    // (%s)". A negative status there is an errno ("error -110" is errno-number's), a positive one after
    // REJECTED the IB CM reject reason.
    {"cm-event-name", "rdma-core librdmacm", Scan::regex, R"(\bRDMA_CM_EVENT_([A-Z_]+))", "cm-event", "",
     "cma event RDMA_CM_EVENT_UNREACHABLE, error -110"},
    {"cm-event-rejected", "rdma-core librdmacm", Scan::regex, R"(\bRDMA_CM_EVENT_REJECTED,? (?:error|status):? (\d+)\b)",
     "cm-reject", "", "cmatose: event: RDMA_CM_EVENT_REJECTED, error: 28"},
    {"cm-event-status-errno", "rdma-core librdmacm", Scan::regex, R"(\bRDMA_CM_EVENT_\w+, status: (-\d+))", "errno",
     "", "mckey: event: RDMA_CM_EVENT_MULTICAST_ERROR, status: -110"},
    // The kernel's "%s (%d): status %d id %p" with rdma_event_msg()'s words (drivers/infiniband/core/cma.c,
    // cma_events[]; "route resolved " ends in a space): drivers/nvme/host/rdma.c nvme_rdma_cm_handler() (dev_dbg),
    // drivers/infiniband/ulp/iser/iser_verbs.c iser_cma_handler() "%s (%d): status %d conn %p id %p" (iser_info,
    // "iser: %s: " first), drivers/infiniband/ulp/isert/ib_isert.c isert_cma_handler() "%s (%d): status %d id %p
    // np %p" (isert_info, "isert: %s: " first). The words first; the number for rdma_event_msg()'s "unrecognized
    // event" (an event past cma_events[]).
    {"kernel-cm-event-words", "Linux nvme-rdma/iSER/isert", Scan::regex,
     R"(\b(address resolved|address error|route resolved|route error|connect request|connect response|connect error|unreachable|rejected|established|disconnected|device removal|multicast join|multicast error|address change|timewait exit) *\(\d+\): status\b)",
     "cm-event", "", "[ 1400.000001] nvme nvme0: address error (1): status -110 id 00000000b1d2c3e4"},
    {"kernel-cm-event", "Linux nvme-rdma/iSER/isert", Scan::regex, R"(\([[:space:]]*(\d+)\): status -?\d+ (?:id|conn)\b)",
     "cm-event", "", "[ 1400.000009] nvme nvme0: unrecognized event (16): status -2 id 00000000b1d2c3e4"},
    {"kernel-cm-status-errno", "Linux nvme-rdma/iSER/isert", Scan::regex, R"(\(\d+\): status (-\d+) (?:id|conn)\b)",
     "errno", "", "[ 1400.000001] nvme nvme0: address error (1): status -110 id 00000000b1d2c3e4"},
    {"kernel-cm-reject", "Linux nvme-rdma/iSER/isert", Scan::regex, R"(\brejected \(\d+\): status (\d+) (?:id|conn)\b)",
     "cm-reject", "",
     "[ 1400.000020] iser: iser_cma_handler: rejected (8): status 28 conn 00000000a1b2c3d4 id 00000000e5f6a7b8"},
    // Linux drivers/nvme/host/rdma.c nvme_rdma_conn_rejected(): "Connect rejected: status %d (%s) nvme status %d
    // (%s)." and "Connect rejected: status %d (%s)." (rdma_reject_msg: the IB CM reason, or iWARP's negative
    // errno); nvme_rdma_cm_handler(): "CM error event %d" and "Unexpected RDMA CM event (%d)"; iser_verbs.c
    // iser_cma_handler(): "Unexpected RDMA CM event: %s (%d)" (older: "Unexpected RDMA CM event (%d)");
    // ib_isert.c isert_cma_handler(): "Unhandled RDMA CMA event: %d".
    {"nvme-connect-rejected", "Linux nvme-rdma", Scan::regex, R"(\bConnect rejected: status (\d+) \()", "cm-reject",
     "", "[ 1400.000030] nvme nvme0: Connect rejected: status 8 (invalid service ID)."},
    {"nvme-connect-rejected-errno", "Linux nvme-rdma", Scan::regex, R"(\bConnect rejected: status (-\d+) \()",
     "errno", "", "[ 1400.000031] nvme nvme1: Connect rejected: status -111 (refused by remote application)."},
    {"nvme-cm-error-event", "Linux nvme-rdma", Scan::regex, R"(\bCM error event (\d+))", "cm-event", "",
     "[ 1400.000040] nvme nvme0: CM error event 7"},
    {"kernel-unexpected-cm-event", "Linux nvme-rdma/iSER", Scan::regex,
     R"(\bUnexpected RDMA CM event(?: \(|: [^(]*\()(\d+)\))", "cm-event", "",
     "[ 1400.000050] iser: iser_cma_handler: Unexpected RDMA CM event: multicast join (12)"},
    {"isert-unhandled-cm-event", "Linux isert", Scan::regex, R"(\bUnhandled RDMA CMA event: (\d+))", "cm-event", "",
     "[ 1400.000060] isert: isert_cma_handler: Unhandled RDMA CMA event: 13"},
    // Lustre lnet/klnds/o2iblnd/o2iblnd_cb.c kiblnd_cm_callback(): "%s: ADDR ERROR %d cm_id %p", "%s: ROUTE ERROR
    // %d cm_id %p", "%s: UNREACHABLE %d cm_id %p conn %p ibc_state: %d", "%s: CONNECT ERROR %d cm_id %p conn %p
    // state: %d", "%s: REJECTED %d cm_id %p conn %p ibc_state: %d", "Unexpected event: %d, status: %d";
    // kiblnd_rejected(): "%s rejected: reason %d, size %d". On the console after lnet/libcfs/tracefile.c's
    // "%s: %d:%d:(%s:%d:%s()) " (CNETERR with printk=+neterror: "LNet: ...") or "%sError: ..." (CERROR).
    {"o2iblnd-event", "Lustre o2iblnd", Scan::regex,
     R"(\b(ADDR ERROR|ROUTE ERROR|UNREACHABLE|CONNECT ERROR|REJECTED) -?\d+ cm_id\b)", "cm-event", "",
     "LNet: 4242:0:(o2iblnd_cb.c:3306:kiblnd_cm_callback()) 10.0.0.2@o2ib: ADDR ERROR -110 cm_id 00000000c0ffee00"},
    {"o2iblnd-reject", "Lustre o2iblnd", Scan::regex, R"(\bREJECTED (\d+) cm_id\b)", "cm-reject", "",
     "LNet: 4242:0:(o2iblnd_cb.c:3418:kiblnd_cm_callback()) 10.0.0.2@o2ib: REJECTED 28 cm_id 00000000c0ffee00 conn "
     "00000000deadbeef ibc_state: 1"},
    {"o2iblnd-status-errno", "Lustre o2iblnd", Scan::regex, R"(\b(?:UNREACHABLE|REJECTED) (-\d+) cm_id\b)", "errno",
     "", "LNet: 4242:0:(o2iblnd_cb.c:3381:kiblnd_cm_callback()) 10.0.0.2@o2ib: UNREACHABLE -110 cm_id "
         "00000000c0ffee00 conn 00000000deadbeef ibc_state: 1"},
    {"o2iblnd-rejected-reason", "Lustre o2iblnd", Scan::regex, R"(\brejected: reason (\d+), size -?\d+)", "cm-reject",
     "", "LNet: 4242:0:(o2iblnd_cb.c:3078:kiblnd_rejected()) 10.0.0.2@o2ib rejected: reason 12, size 148"},
    {"o2iblnd-unexpected-event", "Lustre o2iblnd", Scan::regex, R"(\bUnexpected event: (\d+), status: -?\d+)",
     "cm-event", "", "LNetError: 4242:0:(o2iblnd_cb.c:3292:kiblnd_cm_callback()) Unexpected event: 12, status: 0"},
    // The kernel's RDMA storage consumers (nvme-rdma, nvmet-rdma, rpcrdma/svcrdma, iSER/isert, SRP/srpt): each
    // line of src/decode/kernel_log.hpp's table named by its event, the consumer as the source; the numbers in
    // them below. drivers/nvme/host/core.c nvme_keep_alive_finish(): "failed nvme_keep_alive_end_io error=%d"
    // (a blk_status_t).
    {"kernel-event", "Linux storage consumers", Scan::kernel_event, "", "kernel-event", "",
     "[   28.341921] nvme nvme0: starting error recovery"},
    {"nvme-keepalive-blk-status", "Linux nvme-core", Scan::regex, R"(\bfailed nvme_keep_alive_end_io error=(\d+))",
     "blk-status", "", "[   34.624527] nvme nvme0: failed nvme_keep_alive_end_io error=10"},
    // drivers/nvme/host/fabrics.c nvmf_log_connect_error(): "Connect command failed, error wo/DNR bit: %d" (an
    // NVMe status in decimal); drivers/nvme/host/rdma.c nvme_rdma_start_queue(): "failed to connect queue: %d
    // ret=%d" (> 0 an NVMe status, < 0 an errno).
    {"nvme-connect-status", "Linux nvme-fabrics", Scan::regex, R"(\bConnect command failed, error wo/DNR bit: (\d+))",
     "nvme-status", "", "nvme nvme1: Connect command failed, error wo/DNR bit: 881"},
    {"nvme-connect-queue-status", "Linux nvme-rdma", Scan::regex, R"(\bfailed to connect queue: \d+ ret=(\d+)\b)",
     "nvme-status", "", "nvme nvme1: failed to connect queue: 0 ret=16772"},
    // drivers/nvme/host/rdma.c nvme_rdma_conn_rejected(): "Connect rejected: status %d (%s) nvme status %d (%s)."
    {"nvme-cm-status", "Linux nvme-rdma", Scan::regex, R"(\bnvme status (\d+) \()", "nvme-cm-status", "",
     "nvme nvme0: Connect rejected: status 28 (consumer defined) nvme status 6 (resource not found)."},
    // Errnos in the consumers' own words: rdma.c "rdma connection establishment failed (%d)", fabrics.c "Connect
    // command failed, errno: %d", scsi_transport_srp.c "reconnect attempt %d failed (%d)", ib_isert.c "failed
    // handle connect request %d", iser_verbs.c "resolve route failed: %d" and "failure connecting: %d".
    {"kernel-consumer-errno", "Linux storage consumers", Scan::regex,
     R"(\b(?:connection establishment failed \(|Connect command failed, errno: |reconnect attempt \d+ failed \(|failed handle connect request |resolve route failed: |failure connecting: )(-\d+))",
     "errno", "", "nvme nvme0: rdma connection establishment failed (-104)"},
    // drivers/scsi/scsi_transport_iscsi.c iscsi_conn_error_event(): "detected conn error (%d)" (enum iscsi_err).
    {"iscsi-conn-error", "Linux iSCSI (iSER)", Scan::regex, R"(\bdetected conn error \((\d+)\))", "iscsi-error", "",
     " connection1:0: detected conn error (1011)"},
    // drivers/infiniband/ulp/srp/ib_srp.c: "SRP LOGIN REJECTED, reason 0x%08x", "SRP LOGIN from %pI6 to %pI6
    // REJECTED, reason 0x%08x"; ib_srpt.c srpt_cm_req_recv(): "Rejecting login with reason %#x".
    {"srp-login-reject", "Linux ib_srp/ib_srpt", Scan::regex,
     R"(\b(?:REJECTED, reason|Rejecting login with reason) (0x[0-9a-f]+))", "srp-login-reject", "",
     "scsi host5: ib_srp: SRP LOGIN REJECTED, reason 0x00010006"},
    // ib_srp.c srp_rdma_cm_rej_handler(): "  REJ reason 0x%x" (the IB CM reason); ib_srpt.c srpt_cm_rej_recv():
    // "Received CM REJ for ch %s-%d; reason %d%s%s."
    {"srp-cm-reject", "Linux ib_srp/ib_srpt", Scan::regex,
     R"(\b(?:REJ reason (0x[0-9a-f]+)$|Received CM REJ for ch \S+; reason (\d+)))", "cm-reject", "",
     "scsi host5:   REJ reason 0x8"},
    // ib_srpt.c: "RDMA_READ for ioctx 0x%p failed with status %d", "sending response for ioctx 0x%p failed with
    // status %d" (the ib_wc_status number only).
    {"srpt-wc-status", "Linux ib_srpt", Scan::regex, R"(\bfor ioctx 0x[0-9a-f]+ failed with status (\d+))",
     "wc-status", "", "ib_srpt RDMA_READ for ioctx 0x00000000c0ffee00 failed with status 12"},
    // drivers/infiniband/ulp/iser/iser_verbs.c iser_err_comp(): "%s failure: %s (%d) vend_err %#x" (isert's
    // "vend_err %x" has no 0x: left to the status words).
    {"iser-vend-err", "Linux iSER", Scan::regex, R"(\biser_err_comp: .* vend_err (0x[0-9a-f]+))", "vendor-err", "",
     "iser: iser_err_comp: command failure: transport retry counter exceeded (12) vend_err 0x81"},
    // An ibv_modify_qp attribute mask, as UCX, NCCL and many wrappers print it.
    {"attr-mask", "any", Scan::regex, R"(\battr_mask[ =:]*((?:0x)?[0-9a-f]+))", "qp-attr-mask", "",
     "ibv_modify_qp failed: Invalid argument (attr_mask 0x12d81)"},
    // errno as a number: "errno 22", "errno=-22", kernel "error -110", "ret=-22".
    {"errno-number", "any", Scan::regex, R"(\b(?:errno[ =:]*(-?\d+)|(?:err|error|ret|rc|returned)[ =:]*(-\d+)\b))",
     "errno", "", "mlx5_0: failed to modify QP to RTR, ret=-22", "err|ret|rc"},
    // The words libibverbs' ibv_wc_status_str() (and the kernel's ib_wc_status_msg()) print, and IBV_WC_ names.
    {"wc-status-text", "any", Scan::wc_status_text, "", "wc-status", "",
     "[2026-11-20 10:00:01.000001] mlx5_qp.c: 412:mlx5_cqe_err: *WARNING*: Error on QP 0x30 wqe[012]: Work Request "
     "Flushed Error (synd 0x5 vend 0xf9 hw 0x0) opcode SEND"},
    // glibc's strerror() words and the E names.
    {"errno-text", "any", Scan::errno_text, "", "errno", "", "ibv_modify_qp failed: Invalid argument"},
    // A GID in any IPv6 form.
    {"gid", "any", Scan::gid, "", "gid", "",
     "NET/IB : Got completion from peer 10.0.0.2<58722> with status=12 opcode=0 len=0 vendor err 129 (Send) "
     "localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2"},
    // A device and port: "mlx5_0:1" (UCX, NCCL), "rxe0:1".
    {"device-port", "any", Scan::device_port, "", "port", "",
     "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"},
}};

}  // namespace

std::span<const LogPattern> log_patterns() { return patterns; }

}  // namespace qps::explain
