// The numbers the kernel's RDMA storage consumers print in their log lines
// (src/decode/kernel_log.hpp lists the lines), each table from the kernel
// header that defines it, with what a value means for storage over RDMA.
// explain's topics blk-status, nvme-status, nvme-cm-status,
// srp-login-reject and iscsi-error read them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace qps::decode {

struct StorageCode {
    std::int64_t value;
    std::string_view name;
    std::string_view meaning;
};

// blk_status_t (include/linux/blk_types.h of Linux 6.1) and the words
// block/blk-core.c's blk_errors[] gives each: what nvme-core's "failed
// nvme_keep_alive_end_io error=%d" and the block layer's "%s error, dev ..."
// carry. Newer kernels renumbered from 14 on (BLK_STS_ZONE_RESOURCE went
// away; 6 became BLK_STS_RESV_CONFLICT): blk_status_renumbered says so.
inline constexpr std::array<StorageCode, 18> blk_status_table{{
    {0, "BLK_STS_OK", "success"},
    {1, "BLK_STS_NOTSUPP", "operation not supported (-EOPNOTSUPP)"},
    {2, "BLK_STS_TIMEOUT", "timeout (-ETIMEDOUT)"},
    {3, "BLK_STS_NOSPC", "critical space allocation (-ENOSPC)"},
    {4, "BLK_STS_TRANSPORT", "recoverable transport error (-ENOLINK): nvme's Host Pathing Error; another path may work"},
    {5, "BLK_STS_TARGET", "critical target error (-EREMOTEIO)"},
    {6, "BLK_STS_NEXUS", "critical nexus error (-EBADE): a reservation conflict (BLK_STS_RESV_CONFLICT in newer kernels)"},
    {7, "BLK_STS_MEDIUM", "critical medium error (-ENODATA)"},
    {8, "BLK_STS_PROTECTION", "protection error (-EILSEQ): T10-PI check failed"},
    {9, "BLK_STS_RESOURCE", "kernel resource (-ENOMEM)"},
    {10, "BLK_STS_IOERR",
     "I/O error (-EIO): what nvme gives a command it aborted (Host Aborted Command), e.g. a keep-alive or I/O "
     "cancelled by error recovery after the target stopped answering"},
    {11, "BLK_STS_DM_REQUEUE", "device-mapper internal retry (-EREMCHG)"},
    {12, "BLK_STS_AGAIN", "nonblocking retry (-EAGAIN)"},
    {13, "BLK_STS_DEV_RESOURCE", "device resource busy (-EBUSY)"},
    {14, "BLK_STS_ZONE_RESOURCE", "zone resource (no errno; Linux 6.1 numbering)"},
    {15, "BLK_STS_ZONE_OPEN_RESOURCE", "open zones exceeded (-ETOOMANYREFS; Linux 6.1 numbering)"},
    {16, "BLK_STS_ZONE_ACTIVE_RESOURCE", "active zones exceeded (-EOVERFLOW; Linux 6.1 numbering)"},
    {17, "BLK_STS_OFFLINE", "device offline (-ENODEV; Linux 6.1 numbering)"},
}};
inline constexpr std::string_view blk_status_renumbered =
    "values 0-13 are the same in every kernel since 6.1 (6 is BLK_STS_RESV_CONFLICT in newer ones); from 14 on newer "
    "kernels renumbered (6.18: 14 open zones exceeded, 15 active zones exceeded, 16 offline, 17 duration limit, 19 "
    "invalid)";

// NVMe status codes (include/linux/nvme.h) that a fabrics host logs: the
// Connect command's ("Connect command failed, error wo/DNR bit: %d",
// "failed to connect queue: %d ret=%d") and the path errors. Bits 0x1800
// (CRD), 0x2000 (MORE) and 0x4000 (DNR) are flags, not part of the code.
inline constexpr std::array<StorageCode, 16> nvme_status_table{{
    {0x19, "KA_TIMEOUT_EXPIRED", "Keep Alive Timeout Expired: the controller heard no keep-alive within KATO"},
    {0x1a, "KA_TIMEOUT_INVALID", "Keep Alive Timeout Invalid"},
    {0x180, "CONNECT_FORMAT", "Connect: incompatible record format"},
    {0x181, "CONNECT_CTRL_BUSY", "Connect: controller busy (the queue is already connected, or the controller is gone)"},
    {0x182, "CONNECT_INVALID_PARAM", "Connect: invalid parameter (controller ID, queue ID or size)"},
    {0x183, "CONNECT_RESTART_DISC", "Connect: restart discovery"},
    {0x184, "CONNECT_INVALID_HOST", "Connect: this host NQN is not allowed on the subsystem (allowed_hosts)"},
    {0x190, "DISCOVERY_RESTART", "Discovery restart"},
    {0x191, "AUTH_REQUIRED", "authentication required (DH-HMAC-CHAP)"},
    {0x300, "INTERNAL_PATH_ERROR", "internal path error"},
    {0x301, "ANA_PERSISTENT_LOSS", "Asymmetric Access Persistent Loss: this path will not serve the namespace"},
    {0x302, "ANA_INACCESSIBLE", "Asymmetric Access Inaccessible: this path does not serve the namespace now"},
    {0x303, "ANA_TRANSITION", "Asymmetric Access Transition: the path is changing state; retry"},
    {0x360, "CTRL_PATH_ERROR", "controller path error"},
    {0x370, "HOST_PATH_ERROR", "Host Pathing Error: the host had no path for the command (the transport is down)"},
    {0x371, "HOST_ABORTED_CMD",
     "Host Aborted Command: the host cancelled it, a timeout or error recovery tearing the queues down"},
}};
inline constexpr std::int64_t nvme_status_flags = 0x7800;  // CRD | MORE | DNR

// The NVMe-oF RDMA reject status (enum nvme_rdma_cm_status in
// include/linux/nvme-rdma.h) a target puts in its reject's private data:
// the "nvme status %d (%s)" of nvme-rdma's "Connect rejected: ...".
inline constexpr std::array<StorageCode, 9> nvme_cm_status_table{{
    {0x01, "INVALID_LEN", "invalid length of the connect request's private data"},
    {0x02, "INVALID_RECFMT", "invalid record format"},
    {0x03, "INVALID_QID", "invalid queue ID"},
    {0x04, "INVALID_HSQSIZE", "invalid host SQ size (an admin queue larger than the target allows)"},
    {0x05, "INVALID_HRQSIZE", "invalid host RQ size"},
    {0x06, "NO_RSC", "resource not found: the target could not allocate the queue (its CQ, QP or memory)"},
    {0x07, "INVALID_IRD", "invalid IRD"},
    {0x08, "INVALID_ORD", "invalid ORD"},
    {0x09, "INVALID_CNTLID", "invalid controller ID (newer kernels)"},
}};

// SRP login reject reasons (include/scsi/srp.h): ib_srp's "SRP LOGIN
// REJECTED, reason 0x%08x", ib_srpt's "Rejecting login with reason %#x".
inline constexpr std::array<StorageCode, 7> srp_login_reject_table{{
    {0x00010000, "UNABLE_ESTABLISH_CHANNEL", "unable to establish the RDMA channel"},
    {0x00010001, "INSUFFICIENT_RESOURCES", "the target lacks resources (memory), or its port is not enabled yet"},
    {0x00010002, "REQ_IT_IU_LENGTH_TOO_LARGE", "the requested initiator-to-target IU length is too large"},
    {0x00010003, "UNABLE_ASSOCIATE_CHANNEL", "unable to associate the channel (an invalid target port identifier)"},
    {0x00010004, "UNSUPPORTED_DESCRIPTOR_FMT", "unsupported descriptor format"},
    {0x00010005, "MULTI_CHANNEL_UNSUPPORTED", "multi-channel is not supported"},
    {0x00010006, "CHANNEL_LIMIT_REACHED", "channel limit reached, or the initiator is not in the target's ACL"},
}};

// iSCSI connection errors (enum iscsi_err in include/scsi/iscsi_if.h,
// ISCSI_ERR_BASE 1000): " connectionS:C: detected conn error (%d)".
inline constexpr std::array<StorageCode, 22> iscsi_error_table{{
    {1001, "DATASN", "bad DataSN"},
    {1002, "DATA_OFFSET", "bad data offset"},
    {1003, "MAX_CMDSN", "bad MaxCmdSN"},
    {1004, "EXP_CMDSN", "bad ExpCmdSN"},
    {1005, "BAD_OPCODE", "bad opcode"},
    {1006, "DATALEN", "bad data length"},
    {1007, "AHSLEN", "bad AHS length"},
    {1008, "PROTO", "protocol error"},
    {1009, "LUN", "bad LUN"},
    {1010, "BAD_ITT", "bad initiator task tag"},
    {1011, "CONN_FAILED",
     "the connection failed: over iSER a work completion failed or the RDMA connection dropped (iser_err_comp or a "
     "disconnect); iscsid starts session recovery"},
    {1012, "R2TSN", "bad R2TSN"},
    {1013, "SESSION_FAILED", "the session failed"},
    {1014, "HDR_DGST", "header digest error"},
    {1015, "DATA_DGST", "data digest error"},
    {1016, "PARAM_NOT_FOUND", "parameter not found"},
    {1017, "NO_SCSI_CMD", "no SCSI command"},
    {1018, "INVALID_HOST", "invalid host"},
    {1019, "XMIT_FAILED", "transmit failed"},
    {1020, "TCP_CONN_CLOSE", "the TCP connection closed"},
    {1021, "SCSI_EH_SESSION_RST", "the SCSI error handler reset the session"},
    {1022, "NOP_TIMEDOUT", "a NOP-Out ping got no answer within the noop timeout: the target stopped answering"},
}};

}  // namespace qps::decode
