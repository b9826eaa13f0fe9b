// The words of QP states, transports, migration states, access flags, MTUs
// and `qp post`'s operations, and their parsers: each bad value becomes one
// UsageError naming what the caller says it is, the value and what is
// valid. The command line's flags and their conversion into requests are
// commands/qp/flags.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <infiniband/verbs.h>

namespace qps::qp {

// "0x1a", "26" -> 26; a QPN has 24 bits. Throws UsageError naming `what`.
std::uint32_t parse_qpn(const std::string& text, const char* what = "QPN");
// A whole number within [lo, hi], decimal or 0x-hex; throws naming `what`.
std::uint64_t parse_uint(const std::string& text, const char* what, std::uint64_t lo, std::uint64_t hi);
// "reset", "init", "rtr", "rts", "sqd", "sqe", "err" (any case); throws
// naming `what`.
ibv_qp_state parse_state(const std::string& text, const char* what);
// "migrated", "rearm", "armed" (any case); throws naming `what`.
ibv_mig_state parse_mig_state(const std::string& text, const char* what);
// "rc", "uc", "ud" (any case); throws naming the transport (a given()
// mark: the command line spells it).
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

// The work request `qp post` asks the holder for, its operands checked.
struct PostRequest {
    PostOp op = PostOp::send;
    std::uint32_t size = default_post_size;  // atomics: atomic_operand_bytes
    std::optional<std::uint64_t> raddr;      // with rkey, or neither
    std::optional<std::uint32_t> rkey;
    std::uint64_t compare_add = 0;           // fadd: the addend; cas: the value compared
    std::uint64_t swap = 0;                  // cas: the value written when equal
    std::uint32_t count = 1;                 // WRs posted in one chain (sends: each signalled)
    bool recv = false;                       // receives instead (into the QP's SRQ when it has one)
};

}  // namespace qps::qp
