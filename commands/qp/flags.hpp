// The qp commands' attribute and post flags: declared on the command line
// (`qp modify`, `qp create --to`), kept as typed, and converted into the
// core's requests (ModifyRequest, PostRequest). Names (states, access
// flags, MTU in bytes, durations for timeout and RNR timer) become codes,
// and every bad value becomes one UsageError naming the option as the
// user typed it, the value and what is valid: this is the command line,
// so its messages speak its options (the core's parsers name the thing).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/qp/attributes.hpp"
#include "src/qp/options.hpp"

namespace qps::commands {

// `qp modify`'s and `qp create --to`'s attribute flags as typed.
struct ModifyFlags {
    std::optional<std::string> state, cur_state, port, pkey_index, qkey, access, mtu, dest_qpn, rq_psn, sq_psn,
        max_rd_atomic, max_dest_rd_atomic, min_rnr_timer, timeout, retry_cnt, rnr_retry, dgid, dlid, sl,
        sgid_index, hop_limit, traffic_class, flow_label, static_rate, path_mig_state;
};

qp::ParsedModify parse_modify_flags(const ModifyFlags& flags);

// Declares the flags of ModifyFlags on cmd: one per QP attribute.
void add_attribute_flags(CLI::App* cmd, ModifyFlags& f);

// `qp post`'s options as typed (a value not given is nullopt).
struct PostFlags {
    std::string op = "send";
    std::optional<std::uint32_t> size;
    std::optional<std::string> raddr, rkey, add, compare, swap;
    std::optional<std::uint32_t> count;
    bool recv = false;
};

// Converts and checks PostFlags: --add only with fadd (default 1),
// --compare and --swap only with cas and both required there, -s 8 (or no
// -s) for an atomic, --raddr and --rkey together, an atomic's --raddr
// 8-byte aligned, --recv with none of a send's operands (--op, -s,
// --raddr, ...). Throws one UsageError naming the option, the value and
// what is valid.
qp::PostRequest parse_post_flags(const PostFlags& flags);

}  // namespace qps::commands
