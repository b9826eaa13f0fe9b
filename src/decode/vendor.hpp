// Vendor completion errors, only where a public source documents them.
// Each table cites the header its values come from and the function that
// maps them to an ibv_wc_status; a provider without such a source has a
// row saying what it stores and that the values are not documented.
#pragma once

#include <array>
#include <infiniband/verbs.h>
#include <span>
#include <string_view>

namespace qps::decode {

struct VendorCode {
    int value;
    std::string_view name;
    int wc_status;             // what the provider reports in ibv_wc.status for it
    std::string_view meaning;
};

// mlx5 CQE error syndromes: MLX5_CQE_SYNDROME_* of rdma-core
// providers/mlx5/mlx5dv.h (and Linux include/linux/mlx5/device.h); the
// status is what providers/mlx5/cq.c (handle_error_cqe) reports, any other
// syndrome being IBV_WC_GENERAL_ERR. UCX prints it as "synd", the kernel
// as "syndrome".
inline constexpr std::array<VendorCode, 13> mlx5_cqe_syndrome_table{{
    {0x01, "LOCAL_LENGTH_ERR", IBV_WC_LOC_LEN_ERR, "a receive buffer too small, or a send over the maximum message size"},
    {0x02, "LOCAL_QP_OP_ERR", IBV_WC_LOC_QP_OP_ERR, "the work request does not fit the QP"},
    {0x04, "LOCAL_PROT_ERR", IBV_WC_LOC_PROT_ERR, "a local lkey, range or access right is wrong"},
    {0x05, "WR_FLUSH_ERR", IBV_WC_WR_FLUSH_ERR, "flushed: the QP was in error"},
    {0x06, "MW_BIND_ERR", IBV_WC_MW_BIND_ERR, "a memory window bind failed"},
    {0x10, "BAD_RESP_ERR", IBV_WC_BAD_RESP_ERR, "the responder answered with an unexpected opcode"},
    {0x11, "LOCAL_ACCESS_ERR", IBV_WC_LOC_ACCESS_ERR, "a protection error on a local buffer for an incoming write with immediate"},
    {0x12, "REMOTE_INVAL_REQ_ERR", IBV_WC_REM_INV_REQ_ERR, "the responder rejected the request as invalid"},
    {0x13, "REMOTE_ACCESS_ERR", IBV_WC_REM_ACCESS_ERR, "the rkey, address or access on the responder is wrong"},
    {0x14, "REMOTE_OP_ERR", IBV_WC_REM_OP_ERR, "the responder could not complete the operation"},
    {0x15, "TRANSPORT_RETRY_EXC_ERR", IBV_WC_RETRY_EXC_ERR, "no ACK within timeout × (retry_cnt + 1)"},
    {0x16, "RNR_RETRY_EXC_ERR", IBV_WC_RNR_RETRY_EXC_ERR, "the receiver had no receive posted for rnr_retry retries"},
    {0x22, "REMOTE_ABORTED_ERR", IBV_WC_REM_ABORT_ERR, "the responder aborted the operation"},
}};

// EFA completion statuses: enum efa_io_comp_status of rdma-core
// providers/efa/efa_io_defs.h (the comments there give the meanings); the
// provider stores the status in ibv_wc.vendor_err and maps it to an
// ibv_wc_status in providers/efa/verbs.c (to_ibv_status), any other value
// being IBV_WC_GENERAL_ERR.
inline constexpr std::array<VendorCode, 17> efa_comp_status_table{{
    {0, "OK", IBV_WC_SUCCESS, "success"},
    {1, "FLUSHED", IBV_WC_WR_FLUSH_ERR, "flushed during QP destroy"},
    {2, "LOCAL_ERROR_QP_INTERNAL_ERROR", IBV_WC_LOC_QP_OP_ERR, "internal QP error"},
    {3, "LOCAL_ERROR_UNSUPPORTED_OP", IBV_WC_LOC_QP_OP_ERR, "unsupported operation"},
    {4, "LOCAL_ERROR_INVALID_AH", IBV_WC_LOC_QP_OP_ERR, "bad address handle"},
    {5, "LOCAL_ERROR_INVALID_LKEY", IBV_WC_LOC_PROT_ERR, "bad local key"},
    {6, "LOCAL_ERROR_BAD_LENGTH", IBV_WC_LOC_LEN_ERR, "local buffer too short"},
    {7, "REMOTE_ERROR_BAD_ADDRESS", IBV_WC_REM_ACCESS_ERR, "bad remote address or key"},
    {8, "REMOTE_ERROR_ABORT", IBV_WC_REM_ABORT_ERR, "the connection was reset by the remote side"},
    {9, "REMOTE_ERROR_BAD_DEST_QPN", IBV_WC_REM_INV_RD_REQ_ERR, "bad destination QP number (no such QP, or in error)"},
    {10, "REMOTE_ERROR_RNR", IBV_WC_RNR_RETRY_EXC_ERR, "destination not ready: no receive posted"},
    {11, "REMOTE_ERROR_BAD_LENGTH", IBV_WC_REM_INV_REQ_ERR, "the receiver's buffers are too short"},
    {12, "REMOTE_ERROR_BAD_STATUS", IBV_WC_BAD_RESP_ERR, "the responder returned an unexpected status"},
    {13, "LOCAL_ERROR_UNRESP_REMOTE", IBV_WC_RESP_TIMEOUT_ERR, "the remote stopped responding (it had responded before)"},
    {14, "REMOTE_ERROR_UNKNOWN_PEER", IBV_WC_REM_OP_ERR, "the remote side has no valid address handle for us (RDMA operations)"},
    {15, "LOCAL_ERROR_UNREACH_REMOTE", IBV_WC_RESP_TIMEOUT_ERR, "the remote is unreachable: it never responded"},
    {18, "REMOTE_ERROR_FEATURE_MISMATCH", IBV_WC_GENERAL_ERR, "the two sides support different features"},
}};

// What each provider puts in ibv_wc.vendor_err.
struct VendorErrProvider {
    std::string_view provider;       // rdma-core provider name, as --vendor takes it
    std::string_view vendor_err_is;  // what the field holds
    std::string_view source;         // where the values are documented, or why they are not
    std::span<const VendorCode> values;  // empty: not documented publicly
};
inline constexpr std::array<VendorErrProvider, 2> vendor_err_providers{{
    {"mlx5", "the CQE's vendor_err_synd (UCX's \"vend\", the kernel's \"vendor syndrome\")",
     "not documented publicly; the syndrome beside it is (explain mlx5-syndrome)", {}},
    {"efa", "the CQE's status, an efa_io_comp_status", "rdma-core providers/efa/efa_io_defs.h", efa_comp_status_table},
}};

}  // namespace qps::decode
