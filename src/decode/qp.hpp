// Queue-pair attributes: state, type, path migration state, access flags,
// the ibv_qp_attr_mask bits (with the option that sets each), path MTU, the
// RC timers and retry counters, static rate, work-completion status and
// opcodes, and the GRH traffic class. Values are libibverbs' (verbs.h), which
// are those of the InfiniBand spec; the timer encodings are the spec's.
#pragma once

#include <array>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/decode.hpp"

namespace qps::decode {

// ---------------------------------------------------------------- enumerations

inline constexpr std::array<EnumEntry<int>, 8> qp_state_table{{
    {IBV_QPS_RESET, "RESET"},
    {IBV_QPS_INIT, "INIT"},
    {IBV_QPS_RTR, "RTR"},
    {IBV_QPS_RTS, "RTS"},
    {IBV_QPS_SQD, "SQD"},
    {IBV_QPS_SQE, "SQE"},
    {IBV_QPS_ERR, "ERR"},
    {IBV_QPS_UNKNOWN, "UNKNOWN"},
}};
static_assert(qp_state_table.size() == IBV_QPS_UNKNOWN + 1, "every ibv_qp_state");
static_assert(values_unique<int>(qp_state_table));

// What a QP in each state can do (a QP's state change, as `watch` reports it).
struct QpStateMeaning {
    int value;
    std::string_view meaning;
};
inline constexpr std::array<QpStateMeaning, 8> qp_state_meaning_table{{
    {IBV_QPS_RESET, "RESET: the QP holds no work and no connection; set up again from here"},
    {IBV_QPS_INIT, "INIT: receives may be posted; nothing is sent or received yet"},
    {IBV_QPS_RTR, "RTR: ready to receive from its peer; sends wait for RTS"},
    {IBV_QPS_RTS, "RTS: ready to send and receive"},
    {IBV_QPS_SQD, "SQD: the send queue is draining (or drained) for a change of attributes"},
    {IBV_QPS_SQE, "SQE: a send failed (UD/UC): the send queue stopped, receives go on; modify it back to RTS"},
    {IBV_QPS_ERR, "ERR: the QP failed (a failed completion, a peer gone, a port down, an asynchronous error) and "
                  "flushes its work; it must go to RESET and be set up again"},
    {IBV_QPS_UNKNOWN, "UNKNOWN: the device reports a state libibverbs does not know"},
}};
static_assert(qp_state_meaning_table.size() == qp_state_table.size(), "a meaning for every ibv_qp_state");

// ibv_qp_type has gaps (RC = 2 ... UD = 4, RAW_PACKET = 8, XRC 9/10, DRIVER 0xff).
inline constexpr std::array<EnumEntry<int>, 7> qp_type_table{{
    {IBV_QPT_RC, "RC"},
    {IBV_QPT_UC, "UC"},
    {IBV_QPT_UD, "UD"},
    {IBV_QPT_RAW_PACKET, "RAW_PACKET"},
    {IBV_QPT_XRC_SEND, "XRC_SEND"},
    {IBV_QPT_XRC_RECV, "XRC_RECV"},
    {IBV_QPT_DRIVER, "DRIVER"},
}};
static_assert(values_unique<int>(qp_type_table));
static_assert(lookup<int>(qp_type_table, IBV_QPT_DRIVER).has_value(), "last ibv_qp_type");

// The kernel's ib_qp_type (RDMA netlink's RDMA_NLDEV_ATTR_RES_TYPE) is
// ibv_qp_type plus the two special QPs every IB port has, below RC; the
// kernel (and iproute2's rdma) call the XRC types by their IB names.
inline constexpr std::array<EnumEntry<int>, 4> special_qp_type_table{{
    {0, "SMI"},
    {1, "GSI"},
    {IBV_QPT_XRC_SEND, "XRC_INI"},
    {IBV_QPT_XRC_RECV, "XRC_TGT"},
}};

inline constexpr std::array<EnumEntry<int>, 3> mig_state_table{{
    {IBV_MIG_MIGRATED, "MIGRATED"},
    {IBV_MIG_REARM, "REARM"},
    {IBV_MIG_ARMED, "ARMED"},
}};
static_assert(mig_state_table.size() == IBV_MIG_ARMED + 1, "every ibv_mig_state");

// The QP types qpscope creates (`qp create --transport`, the holder's
// request), in the order the help lists them. Their words come from
// qp_type_table: the one table of QP type names.
inline constexpr std::array<ibv_qp_type, 5> created_qp_types{IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND,
                                                             IBV_QPT_XRC_RECV};
// The transports of a two-sided test (ping-pong, bw, path, the mesh:
// `--transport`). XRC is one word there ("xrc", perftest's -c XRC): the
// sender's XRC_SEND QPs into the receiver's XRC_RECV QPs and XRC SRQ.
inline constexpr std::array<ibv_qp_type, 4> link_qp_types{IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND};
// A QP type's command-line word: its name in lower case, '_' as '-' ("rc",
// "xrc-send"); "" for a value without a name.
std::string qp_type_word(int type);
// The created type whose word is `word` (any case); nullopt for another.
std::optional<ibv_qp_type> created_qp_type(std::string_view word);
// The created types' words: "rc", "uc", "ud", "xrc-send", "xrc-recv".
std::vector<std::string> created_qp_type_words();
// A test's transport words: qp_type_word's, but "xrc" for XRC_SEND.
std::string link_qp_type_word(int type);
std::optional<ibv_qp_type> link_qp_type(std::string_view word);
std::vector<std::string> link_qp_type_words();  // "rc", "uc", "ud", "xrc"
constexpr bool is_xrc(int type) { return type == IBV_QPT_XRC_SEND || type == IBV_QPT_XRC_RECV; }

Decoded qp_state(int raw);
Decoded qp_type(int raw);
// The kernel's ib_qp_type: special_qp_type_table, else qp_type_table.
Decoded kernel_qp_type(int raw);
Decoded mig_state(int raw);

// ---------------------------------------------------------------- access flags

// ibv_access_flags (QP qp_access_flags and MR access). RELAXED_ORDERING is
// the first of the "optional" range (bit 20): a device may ignore it.
inline constexpr std::array<FlagEntry, 9> access_flags_table{{
    {IBV_ACCESS_LOCAL_WRITE, "LOCAL_WRITE"},
    {IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE"},
    {IBV_ACCESS_REMOTE_READ, "REMOTE_READ"},
    {IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC"},
    {IBV_ACCESS_MW_BIND, "MW_BIND"},
    {IBV_ACCESS_ZERO_BASED, "ZERO_BASED"},
    {IBV_ACCESS_ON_DEMAND, "ON_DEMAND"},
    {IBV_ACCESS_HUGETLB, "HUGETLB"},
    {IBV_ACCESS_RELAXED_ORDERING, "RELAXED_ORDERING"},
}};
inline constexpr std::uint64_t libibverbs_access_bits =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
    IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND |
    IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING;
static_assert(named_bits(access_flags_table) == libibverbs_access_bits, "every ibv_access_flags bit");
static_assert(bits_single_and_unique(access_flags_table));

Flags access_flags(std::uint64_t raw);

// Result of parsing a user's value: `value` when ok, else a one-line `error`
// that names the bad input and what would be valid.
struct Parsed {
    bool ok = false;
    std::uint32_t value = 0;
    std::string error;
};

// "local_write,remote_read" -> IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ.
// Names are case-insensitive, '-' and '_' are interchangeable, spaces around
// a name are ignored; "" and "none" mean 0.
Parsed parse_access(std::string_view comma_list);

// ---------------------------------------------------------------- attr mask

// ibv_qp_attr_mask: the bit, its verbs name, and the attribute as a user of
// `qp modify` knows it (the option that sets it, or what it stands for).
struct QpAttrEntry {
    std::uint32_t bit;
    std::string_view name;
    std::string_view option;
};
inline constexpr std::array<QpAttrEntry, 22> qp_attr_table{{
    {IBV_QP_STATE, "STATE", "state"},
    {IBV_QP_CUR_STATE, "CUR_STATE", "cur-state"},
    {IBV_QP_EN_SQD_ASYNC_NOTIFY, "EN_SQD_ASYNC_NOTIFY", "sqd-async-notify"},
    {IBV_QP_ACCESS_FLAGS, "ACCESS_FLAGS", "access"},
    {IBV_QP_PKEY_INDEX, "PKEY_INDEX", "pkey-index"},
    {IBV_QP_PORT, "PORT", "port"},
    {IBV_QP_QKEY, "QKEY", "qkey"},
    {IBV_QP_AV, "AV", "address vector (dlid/dgid/sl/...)"},
    {IBV_QP_PATH_MTU, "PATH_MTU", "mtu"},
    {IBV_QP_TIMEOUT, "TIMEOUT", "timeout"},
    {IBV_QP_RETRY_CNT, "RETRY_CNT", "retry-cnt"},
    {IBV_QP_RNR_RETRY, "RNR_RETRY", "rnr-retry"},
    {IBV_QP_RQ_PSN, "RQ_PSN", "rq-psn"},
    {IBV_QP_MAX_QP_RD_ATOMIC, "MAX_QP_RD_ATOMIC", "max-rd-atomic"},
    {IBV_QP_ALT_PATH, "ALT_PATH", "alternate path (alt-dlid/alt-port/alt-timeout/...)"},
    {IBV_QP_MIN_RNR_TIMER, "MIN_RNR_TIMER", "min-rnr-timer"},
    {IBV_QP_SQ_PSN, "SQ_PSN", "sq-psn"},
    {IBV_QP_MAX_DEST_RD_ATOMIC, "MAX_DEST_RD_ATOMIC", "max-dest-rd-atomic"},
    {IBV_QP_PATH_MIG_STATE, "PATH_MIG_STATE", "path-mig-state"},
    {IBV_QP_CAP, "CAP", "caps (max-send-wr/max-recv-wr/...)"},
    {IBV_QP_DEST_QPN, "DEST_QPN", "dest-qpn"},
    {IBV_QP_RATE_LIMIT, "RATE_LIMIT", "rate-limit"},
}};

// The same bits as a FlagEntry table, for decode_flags.
inline constexpr auto qp_attr_mask_table = [] {
    std::array<FlagEntry, qp_attr_table.size()> t{};
    for (std::size_t i = 0; i < t.size(); ++i)
        t[i] = FlagEntry{qp_attr_table[i].bit, qp_attr_table[i].name};
    return t;
}();
inline constexpr std::uint64_t libibverbs_qp_attr_bits =
    IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS |
    IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
    IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE |
    IBV_QP_CAP | IBV_QP_DEST_QPN | IBV_QP_RATE_LIMIT;
static_assert(named_bits(qp_attr_mask_table) == libibverbs_qp_attr_bits, "every ibv_qp_attr_mask bit");
static_assert(bits_single_and_unique(qp_attr_mask_table));

Flags qp_attr_mask(std::uint64_t raw);
// The user-facing name of one mask bit ("dest-qpn"); nullopt for an unknown bit.
std::optional<std::string_view> qp_attr_option(std::uint32_t bit);
// Every set bit's user-facing name in table order; unknown bits as "0x...".
std::vector<std::string> qp_attr_options(std::uint32_t mask);

// ---------------------------------------------------------------- path MTU

// Path MTU enum (IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5) -> bytes; the same
// decoding as the port's MTU (port.hpp).
Decoded path_mtu(int raw);
// "1024" -> IBV_MTU_1024; anything but 256/512/1024/2048/4096 is an error.
Parsed parse_mtu_bytes(std::string_view bytes);

// ---------------------------------------------------------------- field widths

// The largest value of the QP and address fields that the tests' options set
// (ibv_qp_attr, ibv_ah_attr, by their widths in the IB spec's headers): the
// service level (4 bits), the GRH's traffic class (8) and flow label (20),
// the P_Key index (16), and the RC retry counts (3). The timer codes (5 bits)
// are max_timer_code below. qp modify, ping-pong, bw, path, the mesh and the
// servers' adoption of a client's values check against these.
inline constexpr unsigned max_sl = 15;
inline constexpr unsigned max_traffic_class = 255;
inline constexpr unsigned max_flow_label = 0xfffff;
inline constexpr unsigned max_pkey_index = 0xffff;
inline constexpr unsigned max_retry = 7;  // retry_cnt, rnr_retry

// ---------------------------------------------------------------- RC timers

// Local ACK timeout (ibv_qp_attr.timeout, 5 bits): t = 0 disables the timer
// (the sender waits forever); otherwise the transport timer is nominally
// 4.096 µs × 2^t (t = 14 is 67.1 ms, t = 31 is 8796 s). Hardware timers are
// coarse: the real wait can be longer than the nominal value, never shorter.
inline constexpr double ack_timeout_unit_us = 4.096;
inline constexpr int max_timer_code = 31;

// Nominal timeout of a code in µs; nullopt for 0 (infinite) or a code > 31.
std::optional<double> ack_timeout_us(int code);

// RNR NAK timer (ibv_qp_attr.min_rnr_timer, 5 bits): how long a requester
// that received an RNR NAK waits before retrying. The encoding is the spec's
// table, roughly 1.5x per step with code 0 the longest, not a formula.
struct RnrTimerEntry {
    int code;
    double ms;
};
inline constexpr std::array<RnrTimerEntry, 32> rnr_timer_table{{
    {0, 655.36},  {1, 0.01},   {2, 0.02},   {3, 0.03},    {4, 0.04},    {5, 0.06},
    {6, 0.08},    {7, 0.12},   {8, 0.16},   {9, 0.24},    {10, 0.32},   {11, 0.48},
    {12, 0.64},   {13, 0.96},  {14, 1.28},  {15, 1.92},   {16, 2.56},   {17, 3.84},
    {18, 5.12},   {19, 7.68},  {20, 10.24}, {21, 15.36},  {22, 20.48},  {23, 30.72},
    {24, 40.96},  {25, 61.44}, {26, 81.92}, {27, 122.88}, {28, 163.84}, {29, 245.76},
    {30, 327.68}, {31, 491.52},
}};
constexpr bool rnr_table_well_formed()
{
    for (std::size_t i = 0; i < rnr_timer_table.size(); ++i)
        if (rnr_timer_table[i].code != static_cast<int>(i))
            return false;
    for (std::size_t i = 2; i < rnr_timer_table.size(); ++i)
        if (!(rnr_timer_table[i].ms > rnr_timer_table[i - 1].ms))
            return false;
    return rnr_timer_table[0].ms > rnr_timer_table[31].ms;
}
static_assert(rnr_table_well_formed(), "codes in order, 1..31 increasing, 0 the longest");

Decoded local_ack_timeout(int code);  // unit "us"; code 0 is named "infinite", no value
Decoded rnr_timer(int code);          // unit "ms"
Decoded retry_cnt(int raw);           // 0-7 retries after the first attempt; unit "retries"
Decoded rnr_retry(int raw);           // 0-6 retries; 7 is named "infinite", no value

// How long a requester keeps trying before it completes a work request with
// IBV_WC_RETRY_EXC_ERR ("transport retry counter exceeded"): the first
// attempt and each of the retry_cnt retries wait one local ACK timeout for
// an ACK, so
//     wait = 4.096 µs × 2^timeout_code × (retry_cnt + 1)     [µs]
// nullopt when timeout_code is 0 (the timer is off: it never gives up).
// Nominal (a lower bound): see ack_timeout_us. nullopt also for codes out of
// range (timeout > 31, retry_cnt > 7): decode those first.
std::optional<double> retry_exceeded_wait_us(int timeout_code, int retry_cnt);

// How long a requester keeps retrying against a receiver that has no receive
// posted before it completes with IBV_WC_RNR_RETRY_EXC_ERR: each RNR NAK but
// the last is followed by one RNR timer wait, and the rnr_retry-th retry's
// NAK ends it, so
//     wait = rnr_timer_ms[rnr_timer_code] × rnr_retry              [ms]
// (0 when rnr_retry is 0: the first RNR NAK fails the request). The timer
// is the *responder's* min_rnr_timer, carried in its RNR NAK; rnr_retry is
// the requester's. nullopt when rnr_retry is 7 (retry forever), and for
// codes out of range (timer > 31, rnr_retry > 7).
std::optional<double> rnr_exceeded_wait_ms(int rnr_timer_code, int rnr_retry);

// A timer given by the user as a bare code ("14") or a duration ("67ms",
// "0.5s", "250 us", "infinite"), resolved to a code.
struct ParsedCode {
    bool ok = false;
    std::uint8_t code = 0;
    double exact = 0;            // the code's exact value in `unit`; +inf for infinite
    std::string_view unit;       // "us" (timeout) or "ms" (RNR timer)
    bool from_duration = false;  // a duration was rounded to the nearest code
    std::string summary;         // "67ms → code 14 (67.109 ms)"
    std::string error;           // when !ok: names the value and what is valid
};

// Local ACK timeout: a code 0-31, "infinite" (code 0), or a duration with a
// unit ns/us/µs/ms/s, which picks the code whose value is nearest (ties go to
// the longer one). Durations must lie within half the shortest (8.192 µs)
// and twice the longest (8796 s) finite value.
ParsedCode parse_timeout(std::string_view text);
// RNR NAK timer: a code 0-31 or a duration (nearest of the 32 table values;
// within half of 0.01 ms and twice 655.36 ms). There is no infinite timer.
ParsedCode parse_rnr_timer(std::string_view text);

// "67.109 ms", "8.192 µs", "8796.093 s": a duration in the largest unit that
// keeps it >= 1, with at most three decimals.
std::string human_duration_us(double us);

// ---------------------------------------------------------------- static rate

// ibv_rate (ah_attr.static_rate): MAX means "no limit, the port's rate".
// gbps is the nominal figure of the enum's name; mbps is what
// ibv_rate_to_mbps() returns (the signalling rate, e.g. 103125 for 100G).
struct RateEntry {
    int value;
    std::string_view name;
    double gbps;
    int mbps;
};
inline constexpr std::array<RateEntry, 24> static_rate_table{{
    {IBV_RATE_MAX, "MAX", 0, 0},
    {IBV_RATE_2_5_GBPS, "2_5_GBPS", 2.5, 2500},
    {IBV_RATE_10_GBPS, "10_GBPS", 10, 10000},
    {IBV_RATE_30_GBPS, "30_GBPS", 30, 30000},
    {IBV_RATE_5_GBPS, "5_GBPS", 5, 5000},
    {IBV_RATE_20_GBPS, "20_GBPS", 20, 20000},
    {IBV_RATE_40_GBPS, "40_GBPS", 40, 40000},
    {IBV_RATE_60_GBPS, "60_GBPS", 60, 60000},
    {IBV_RATE_80_GBPS, "80_GBPS", 80, 80000},
    {IBV_RATE_120_GBPS, "120_GBPS", 120, 120000},
    {IBV_RATE_14_GBPS, "14_GBPS", 14, 14062},
    {IBV_RATE_56_GBPS, "56_GBPS", 56, 56250},
    {IBV_RATE_112_GBPS, "112_GBPS", 112, 112500},
    {IBV_RATE_168_GBPS, "168_GBPS", 168, 168750},
    {IBV_RATE_25_GBPS, "25_GBPS", 25, 25781},
    {IBV_RATE_100_GBPS, "100_GBPS", 100, 103125},
    {IBV_RATE_200_GBPS, "200_GBPS", 200, 206250},
    {IBV_RATE_300_GBPS, "300_GBPS", 300, 309375},
    {IBV_RATE_28_GBPS, "28_GBPS", 28, 28125},
    {IBV_RATE_50_GBPS, "50_GBPS", 50, 53125},
    {IBV_RATE_400_GBPS, "400_GBPS", 400, 425000},
    {IBV_RATE_600_GBPS, "600_GBPS", 600, 637500},
    {IBV_RATE_800_GBPS, "800_GBPS", 800, 850000},
    {IBV_RATE_1200_GBPS, "1200_GBPS", 1200, 1275000},
}};
// Values 0 and 2..IBV_RATE_1200_GBPS, each once (1 is unassigned).
static_assert(static_rate_table.size() == IBV_RATE_1200_GBPS, "every ibv_rate");
constexpr bool rate_values_unique_and_known()
{
    for (std::size_t i = 0; i < static_rate_table.size(); ++i) {
        const int v = static_rate_table[i].value;
        if (v < 0 || v == 1 || v > IBV_RATE_1200_GBPS)
            return false;
        for (std::size_t j = i + 1; j < static_rate_table.size(); ++j)
            if (static_rate_table[j].value == v)
                return false;
    }
    return true;
}
static_assert(rate_values_unique_and_known());

// Unit "gbps" (nominal). MAX is named "MAX" with no value.
Decoded static_rate(int raw);
// ibv_rate_to_mbps()'s figure; nullopt for MAX and unknown values.
std::optional<int> static_rate_mbps(int raw);

// ---------------------------------------------------------------- completions

struct WcStatusEntry {
    int value;
    std::string_view name;
    std::string_view meaning;  // plain words: what happened and the usual causes
};
inline constexpr std::array<WcStatusEntry, 24> wc_status_table{{
    {IBV_WC_SUCCESS, "SUCCESS", "the work request completed"},
    {IBV_WC_LOC_LEN_ERR, "LOC_LEN_ERR",
     "local length error: a posted receive buffer is too small for the incoming message, or a "
     "send is larger than the port's maximum message size"},
    {IBV_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR",
     "local QP operation error: the work request does not fit the QP (opcode not valid for its "
     "type, too many SGEs, inline data too large, UD address handle from another PD); Soft-RoCE (rxe) "
     "also reports it when its netdev cannot send the packet (the link down, no route to the peer)"},
    {IBV_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR",
     "local EE context operation error (Reliable Datagram only, which Linux does not implement)"},
    {IBV_WC_LOC_PROT_ERR, "LOC_PROT_ERR",
     "local protection error: an SGE's lkey is wrong, the buffer is outside its memory region, "
     "or the region lacks the access the operation needs (LOCAL_WRITE to receive into it)"},
    {IBV_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR",
     "flushed: the QP was or went into ERR before this request ran; the cause is the first "
     "completion with a different error"},
    {IBV_WC_MW_BIND_ERR, "MW_BIND_ERR",
     "memory window bind failed: the region lacks MW_BIND, the window exceeds the region, or the "
     "rights asked for are not allowed"},
    {IBV_WC_BAD_RESP_ERR, "BAD_RESP_ERR",
     "bad response: the responder answered with an unexpected transport opcode (a protocol error "
     "on the remote side)"},
    {IBV_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR",
     "local access error: a protection error on a local buffer while handling the remote side's "
     "RDMA write with immediate"},
    {IBV_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR",
     "remote invalid request: the responder rejected the request (operation not enabled in its "
     "QP access flags, no room for another RDMA read/atomic, or a length over 2^31)"},
    {IBV_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR",
     "remote access error: the rkey, address or length does not match a remote memory region "
     "with the needed REMOTE_READ/REMOTE_WRITE/REMOTE_ATOMIC access"},
    {IBV_WC_REM_OP_ERR, "REM_OP_ERR",
     "remote operation error: the responder could not complete the request (its receive queue "
     "entry was bad, or its QP hit an error)"},
    {IBV_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR",
     "transport retry counter exceeded: the remote side did not ACK within timeout × "
     "(retry_cnt+1); peer down, path wrong (GID/MTU/PSN), or link loss"},
    {IBV_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR",
     "RNR retry counter exceeded: the receiver kept answering Receiver Not Ready (no receive "
     "posted) for more than rnr_retry retries"},
    {IBV_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR",
     "local RDD violation (Reliable Datagram only, which Linux does not implement)"},
    {IBV_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR",
     "remote invalid RD request (Reliable Datagram only, which Linux does not implement)"},
    {IBV_WC_REM_ABORT_ERR, "REM_ABORT_ERR", "remote aborted: the responder aborted the operation"},
    {IBV_WC_INV_EECN_ERR, "INV_EECN_ERR",
     "invalid EE context number (Reliable Datagram only, which Linux does not implement)"},
    {IBV_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR",
     "invalid EE context state (Reliable Datagram only, which Linux does not implement)"},
    {IBV_WC_FATAL_ERR, "FATAL_ERR", "fatal error: the device or its driver hit an unrecoverable error"},
    {IBV_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR",
     "response timeout: the responder did not answer in time"},
    {IBV_WC_GENERAL_ERR, "GENERAL_ERR", "general error: a failure none of the other statuses names"},
    {IBV_WC_TM_ERR, "TM_ERR", "tag-matching error: a tag list operation on a tag-matching SRQ failed"},
    {IBV_WC_TM_RNDV_INCOMPLETE, "TM_RNDV_INCOMPLETE",
     "tag-matching rendezvous incomplete: the message matched a tag but the device did not fetch "
     "the data; software has to complete the rendezvous"},
}};
static_assert(wc_status_table.size() == IBV_WC_TM_RNDV_INCOMPLETE + 1, "every ibv_wc_status");

// What to check after a completion error, by status (`qp query`'s diagnosis
// and `explain wc-status`), most likely first; ';'-separated.
struct WcStatusChecks {
    int status;
    std::string_view checks;
};
inline constexpr std::array<WcStatusChecks, 8> wc_status_checks_table{{
    {IBV_WC_RETRY_EXC_ERR, "is the peer QP still there and in RTR/RTS?;does dest-qpn name the peer's QPN?;does "
                           "dgid name the peer's GID and sgid-index a GID of the same type (RoCE v2) on this "
                           "port?;is the path MTU at most both ports' active MTU?;do this sq-psn and the peer's "
                           "rq-psn agree?;is the link up on both sides?"},
    {IBV_WC_RNR_RETRY_EXC_ERR, "does the peer post receives before sends arrive?;raise the peer's min-rnr-timer "
                               "or this QP's rnr-retry (7 = retry forever)"},
    {IBV_WC_REM_ACCESS_ERR, "is the rkey the peer's current one?;does the remote address range lie inside the "
                            "peer's memory region?;does the peer QP's access include remote_write/remote_read?"},
    {IBV_WC_REM_INV_REQ_ERR, "does the peer QP's access allow this operation?;is max-dest-rd-atomic on the peer "
                             "at least this QP's max-rd-atomic?"},
    {IBV_WC_LOC_PROT_ERR, "is the lkey the one of the region holding the buffer?;does the buffer lie inside "
                          "it?;was the region registered with local_write for receives?"},
    {IBV_WC_LOC_LEN_ERR, "is the peer's receive buffer at least the message size?;on UD, is the message within "
                         "the path MTU?"},
    {IBV_WC_WR_FLUSH_ERR, "find the first completion of this QP with another status: it is the cause;was the QP "
                          "moved to ERR by a modify or an asynchronous event (qpscope qp list --stalled)?"},
    {IBV_WC_REM_OP_ERR, "did the peer's receive queue entry have a valid lkey and buffer?;is the peer QP in "
                        "ERR (look at its own completions)?"},
}};

inline constexpr std::array<EnumEntry<int>, 19> wc_opcode_table{{
    {IBV_WC_SEND, "SEND"},
    {IBV_WC_RDMA_WRITE, "RDMA_WRITE"},
    {IBV_WC_RDMA_READ, "RDMA_READ"},
    {IBV_WC_COMP_SWAP, "COMP_SWAP"},
    {IBV_WC_FETCH_ADD, "FETCH_ADD"},
    {IBV_WC_BIND_MW, "BIND_MW"},
    {IBV_WC_LOCAL_INV, "LOCAL_INV"},
    {IBV_WC_TSO, "TSO"},
    {IBV_WC_ATOMIC_WRITE, "ATOMIC_WRITE"},
    {IBV_WC_RECV, "RECV"},
    {IBV_WC_RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM"},
    {IBV_WC_TM_ADD, "TM_ADD"},
    {IBV_WC_TM_DEL, "TM_DEL"},
    {IBV_WC_TM_SYNC, "TM_SYNC"},
    {IBV_WC_TM_RECV, "TM_RECV"},
    {IBV_WC_TM_NO_TAG, "TM_NO_TAG"},
    {IBV_WC_DRIVER1, "DRIVER1"},
    {IBV_WC_DRIVER2, "DRIVER2"},
    {IBV_WC_DRIVER3, "DRIVER3"},
}};
// Send-side opcodes 0..TSO and ATOMIC_WRITE, receive-side RECV..DRIVER3.
static_assert(wc_opcode_table.size() ==
                  (IBV_WC_TSO + 1) + 1 + (IBV_WC_DRIVER3 - IBV_WC_RECV + 1),
              "every ibv_wc_opcode");
static_assert(values_unique<int>(wc_opcode_table));

inline constexpr std::array<EnumEntry<int>, 13> wr_opcode_table{{
    {IBV_WR_RDMA_WRITE, "RDMA_WRITE"},
    {IBV_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM"},
    {IBV_WR_SEND, "SEND"},
    {IBV_WR_SEND_WITH_IMM, "SEND_WITH_IMM"},
    {IBV_WR_RDMA_READ, "RDMA_READ"},
    {IBV_WR_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP"},
    {IBV_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD"},
    {IBV_WR_LOCAL_INV, "LOCAL_INV"},
    {IBV_WR_BIND_MW, "BIND_MW"},
    {IBV_WR_SEND_WITH_INV, "SEND_WITH_INV"},
    {IBV_WR_TSO, "TSO"},
    {IBV_WR_DRIVER1, "DRIVER1"},
    {IBV_WR_ATOMIC_WRITE, "ATOMIC_WRITE"},
}};
static_assert(wr_opcode_table.size() == (IBV_WR_DRIVER1 + 1) + 1, "every ibv_wr_opcode");
static_assert(values_unique<int>(wr_opcode_table));

Decoded wc_status(int raw);
// The plain-words meaning of a status; "unknown status" for a value without one.
std::string_view wc_status_meaning(int raw);
// The checks of wc_status_checks_table for a status, one string each; empty
// for a status without advice.
std::vector<std::string> wc_status_checks(int raw);
Decoded wc_opcode(int raw);
Decoded wr_opcode(int raw);

// The traffic class (DSCP, ECN) is src/decode/tos.hpp.

}  // namespace qps::decode
