// The formats `explain --log` knows: one row per way a program prints an
// RDMA value, with a line in that program's real format (instantiated from
// the format string named in the comment, with made-up values).
// tests/unit/explain/log_corpus.txt holds more lines of each source, each
// with the format string it comes from.
#include <array>

#include "src/explain/log.hpp"

namespace qps::explain {

namespace {

constexpr std::array<LogPattern, 19> patterns{{
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
    // An ibv_modify_qp attribute mask, as UCX, NCCL and many wrappers print it.
    {"attr-mask", "any", Scan::regex, R"(\battr_mask[ =:]*((?:0x)?[0-9a-f]+))", "qp-attr-mask", "",
     "ibv_modify_qp failed: Invalid argument (attr_mask 0x12d81)"},
    // errno as a number: "errno 22", "errno=-22", kernel "error -110", "ret=-22".
    {"errno-number", "any", Scan::regex, R"(\b(?:errno[ =:]*(-?\d+)|(?:err|error|ret|rc|returned)[ =:]*(-\d+)\b))",
     "errno", "", "mlx5_0: failed to modify QP to RTR, ret=-22"},
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
