// Text of the `qp modify` / `qp create --to` attribute flags, as typed, and
// its conversion into a ModifyRequest: names (states, access flags, MTU in
// bytes, durations for timeout and RNR timer) become codes, and every bad
// value becomes one UsageError naming the flag, the value and what is valid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/qp/attributes.hpp"

namespace qps::qp {

struct ModifyFlags {
    std::optional<std::string> state, cur_state, port, pkey_index, qkey, access, mtu, dest_qpn, rq_psn, sq_psn,
        max_rd_atomic, max_dest_rd_atomic, min_rnr_timer, timeout, retry_cnt, rnr_retry, dgid, dlid, sl,
        sgid_index, hop_limit, traffic_class, flow_label, static_rate, path_mig_state;
};

struct ParsedModify {
    ModifyRequest request;
    std::vector<std::string> notes;  // e.g. "--qp-timeout 67ms → code 14 (67.109 ms)"
};

ParsedModify parse_modify_flags(const ModifyFlags& flags);

// "0x1a", "26" -> 26; a QPN has 24 bits. Throws UsageError naming `what`.
std::uint32_t parse_qpn(const std::string& text, const char* what = "QPN");
// A whole number within [lo, hi], decimal or 0x-hex; throws naming `flag`.
std::uint64_t parse_uint(const std::string& text, const char* flag, std::uint64_t lo, std::uint64_t hi);
// "reset", "init", "rtr", "rts", "sqd", "sqe", "err" (any case).
ibv_qp_state parse_state(const std::string& text, const char* flag);
ibv_qp_type parse_qp_type(const std::string& text);

// The words the options above accept, in table order (for the command
// line's checks, --help and the shell completions).
std::vector<std::string> state_words();      // reset, init, rtr, rts, sqd, sqe, err
std::vector<std::string> qp_type_words();    // rc, uc, ud
std::vector<std::string> mig_state_words();  // migrated, rearm, armed
std::vector<std::string> access_words();     // local_write, ..., relaxed_ordering
std::vector<std::string> mtu_words();        // 256, ..., 4096 (bytes)

// ------------------------------------------------------------- qp post

// The work requests `qp post` can post. The atomics (fetch-and-add,
// compare-and-swap) work on one 8-byte operand at an 8-byte aligned remote
// address (IBA 9.4.5), on RC QPs only.
enum class PostOp { send, write, read, fadd, cas };
inline constexpr std::uint32_t atomic_operand_bytes = 8;
inline constexpr std::uint32_t default_post_size = 64;

std::vector<std::string> post_op_words();  // send, write, read, fadd, cas
// One of post_op_words(); UsageError naming `text` and the words otherwise.
PostOp parse_post_op(const std::string& text);
std::string_view post_op_name(PostOp op);
ibv_wr_opcode post_wr_opcode(PostOp op);
constexpr bool is_atomic(PostOp op) { return op == PostOp::fadd || op == PostOp::cas; }

// `qp post`'s options as typed (a value not given is nullopt).
struct PostFlags {
    std::string op = "send";
    std::optional<std::uint32_t> size;
    std::optional<std::string> raddr, rkey, add, compare, swap;
};

// The work request `qp post` asks the holder for, its operands checked.
struct PostRequest {
    PostOp op = PostOp::send;
    std::uint32_t size = default_post_size;  // atomics: atomic_operand_bytes
    std::optional<std::uint64_t> raddr;      // with rkey, or neither
    std::optional<std::uint32_t> rkey;
    std::uint64_t compare_add = 0;           // fadd: the addend; cas: the value compared
    std::uint64_t swap = 0;                  // cas: the value written when equal
};

// Converts and checks PostFlags: --add only with fadd (default 1),
// --compare and --swap only with cas and both required there, -s 8 (or no
// -s) for an atomic, --raddr and --rkey together, an atomic's --raddr
// 8-byte aligned. Throws one UsageError naming the option, the value and
// what is valid.
PostRequest parse_post_flags(const PostFlags& flags);

}  // namespace qps::qp
