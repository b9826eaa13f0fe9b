// ibv_qp_attr_mask bits under short names, for the QP tests' expected
// values. Written out from the IBA transition tables and libibverbs'
// enum ibv_qp_attr_mask, not from src/.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>

namespace qps::test::masks {

constexpr std::uint32_t STATE = IBV_QP_STATE;
constexpr std::uint32_t CUR = IBV_QP_CUR_STATE;
constexpr std::uint32_t SQD_NOTIFY = IBV_QP_EN_SQD_ASYNC_NOTIFY;
constexpr std::uint32_t ACCESS = IBV_QP_ACCESS_FLAGS;
constexpr std::uint32_t PKEY = IBV_QP_PKEY_INDEX;
constexpr std::uint32_t PORT = IBV_QP_PORT;
constexpr std::uint32_t QKEY = IBV_QP_QKEY;
constexpr std::uint32_t AV = IBV_QP_AV;
constexpr std::uint32_t MTU = IBV_QP_PATH_MTU;
constexpr std::uint32_t TIMEOUT = IBV_QP_TIMEOUT;
constexpr std::uint32_t RETRY = IBV_QP_RETRY_CNT;
constexpr std::uint32_t RNR_RETRY = IBV_QP_RNR_RETRY;
constexpr std::uint32_t RQ_PSN = IBV_QP_RQ_PSN;
constexpr std::uint32_t RD_ATOMIC = IBV_QP_MAX_QP_RD_ATOMIC;
constexpr std::uint32_t ALT = IBV_QP_ALT_PATH;
constexpr std::uint32_t MIN_RNR = IBV_QP_MIN_RNR_TIMER;
constexpr std::uint32_t SQ_PSN = IBV_QP_SQ_PSN;
constexpr std::uint32_t DEST_RD_ATOMIC = IBV_QP_MAX_DEST_RD_ATOMIC;
constexpr std::uint32_t MIG = IBV_QP_PATH_MIG_STATE;
constexpr std::uint32_t DEST_QPN = IBV_QP_DEST_QPN;
constexpr std::uint32_t RATE = IBV_QP_RATE_LIMIT;

}  // namespace qps::test::masks
