#include "src/qp/options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utility>

#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/util/text.hpp"

namespace qps::qp {

using util::lower;

namespace {

struct StateName {
    std::string_view name;
    ibv_qp_state state;
};
constexpr std::array<StateName, 7> state_names{{
    {"reset", IBV_QPS_RESET},
    {"init", IBV_QPS_INIT},
    {"rtr", IBV_QPS_RTR},
    {"rts", IBV_QPS_RTS},
    {"sqd", IBV_QPS_SQD},
    {"sqe", IBV_QPS_SQE},
    {"err", IBV_QPS_ERR},
}};

struct TypeName {
    std::string_view name;
    ibv_qp_type type;
};
constexpr std::array<TypeName, 3> type_names{{
    {"rc", IBV_QPT_RC},
    {"uc", IBV_QPT_UC},
    {"ud", IBV_QPT_UD},
}};

struct MigName {
    std::string_view name;
    ibv_mig_state state;
};
constexpr std::array<MigName, 3> mig_names{{
    {"migrated", IBV_MIG_MIGRATED},
    {"rearm", IBV_MIG_REARM},
    {"armed", IBV_MIG_ARMED},
}};

struct PostOpName {
    std::string_view name;
    PostOp op;
    ibv_wr_opcode opcode;
};
constexpr std::array<PostOpName, 5> post_op_names{{
    {"send", PostOp::send, IBV_WR_SEND},
    {"write", PostOp::write, IBV_WR_RDMA_WRITE},
    {"read", PostOp::read, IBV_WR_RDMA_READ},
    {"fadd", PostOp::fadd, IBV_WR_ATOMIC_FETCH_AND_ADD},
    {"cas", PostOp::cas, IBV_WR_ATOMIC_CMP_AND_SWP},
}};
static_assert(post_op_names.back().op == PostOp::cas, "every PostOp, in enum order");

const PostOpName& post_op_entry(PostOp op) { return post_op_names[static_cast<std::size_t>(op)]; }

}  // namespace

std::uint64_t parse_uint(const std::string& text, const char* flag, std::uint64_t lo, std::uint64_t hi)
{
    std::string_view s = text;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < lo || v > hi)
        throw UsageError(fmt::format("{} '{}': expected a whole number in {}..{} (decimal or 0x hex)", flag, text,
                                     lo, hi));
    return v;
}

std::uint32_t parse_qpn(const std::string& text, const char* what)
{
    return static_cast<std::uint32_t>(parse_uint(text, what, 0, 0xffffff));
}

ibv_qp_state parse_state(const std::string& text, const char* flag)
{
    const std::string l = lower(text);
    for (const auto& s : state_names)
        if (s.name == l)
            return s.state;
    throw UsageError(fmt::format("{} '{}': valid states are reset, init, rtr, rts, sqd, sqe, err", flag, text));
}

ibv_qp_type parse_qp_type(const std::string& text)
{
    const std::string l = lower(text);
    for (const auto& t : type_names)
        if (t.name == l)
            return t.type;
    throw UsageError(fmt::format("--transport '{}': valid types are rc, uc, ud", text));
}

namespace {
template <class Table>
std::vector<std::string> names_of(const Table& table)
{
    std::vector<std::string> out;
    for (const auto& e : table)
        out.push_back(lower(e.name));
    return out;
}
}  // namespace

std::vector<std::string> state_words() { return names_of(state_names); }
std::vector<std::string> qp_type_words() { return names_of(type_names); }
std::vector<std::string> mig_state_words() { return names_of(mig_names); }
std::vector<std::string> access_words() { return names_of(decode::access_flags_table); }
std::vector<std::string> mtu_words() { return names_of(decode::mtu_table); }
std::vector<std::string> post_op_words() { return names_of(post_op_names); }

PostOp parse_post_op(const std::string& text)
{
    const std::string l = lower(text);
    for (const auto& o : post_op_names)
        if (o.name == l)
            return o.op;
    throw UsageError(fmt::format("--op '{}': valid operations are {}", text, fmt::join(post_op_words(), ", ")));
}

std::string_view post_op_name(PostOp op) { return post_op_entry(op).name; }
ibv_wr_opcode post_wr_opcode(PostOp op) { return post_op_entry(op).opcode; }

PostRequest parse_post_flags(const PostFlags& f)
{
    PostRequest r;
    r.op = parse_post_op(f.op);
    const std::string_view name = post_op_name(r.op);
    constexpr std::uint64_t any = ~std::uint64_t{0};

    // Operands that belong to another operation are refused, not ignored:
    // a typo in --op would otherwise post something else.
    if (f.add && r.op != PostOp::fadd)
        throw UsageError(fmt::format("--add {}: --add is the addend of --op fadd, not of --op {}", *f.add, name));
    for (const auto& [given, flag] : {std::pair{&f.compare, "--compare"}, std::pair{&f.swap, "--swap"}})
        if (*given && r.op != PostOp::cas)
            throw UsageError(fmt::format("{} {}: {} is an operand of --op cas, not of --op {}", flag, **given, flag,
                                         name));
    if (r.op == PostOp::fadd)
        r.compare_add = f.add ? parse_uint(*f.add, "--add", 0, any) : 1;
    if (r.op == PostOp::cas) {
        if (!f.compare || !f.swap)
            throw UsageError(fmt::format("--op cas needs both --compare N and --swap N (missing: {})",
                                         !f.compare && !f.swap ? "--compare, --swap"
                                         : !f.compare          ? "--compare"
                                                               : "--swap"));
        r.compare_add = parse_uint(*f.compare, "--compare", 0, any);
        r.swap = parse_uint(*f.swap, "--swap", 0, any);
    }

    if (is_atomic(r.op)) {
        if (f.size && *f.size != atomic_operand_bytes)
            throw UsageError(fmt::format("-s {}: --op {} works on one {}-byte operand (give -s {}, or leave -s out)",
                                         *f.size, name, atomic_operand_bytes, atomic_operand_bytes));
        r.size = atomic_operand_bytes;
    } else if (f.size) {
        r.size = *f.size;
    }

    if (f.raddr.has_value() != f.rkey.has_value())
        throw UsageError(fmt::format("{} {}: give --raddr and --rkey together (the remote buffer's address and its "
                                     "key), or neither to use the peer's buffer when the holder has the peer",
                                     f.raddr ? "--raddr" : "--rkey", f.raddr ? *f.raddr : *f.rkey));
    if (f.raddr) {
        r.raddr = parse_uint(*f.raddr, "--raddr", 0, any);
        r.rkey = static_cast<std::uint32_t>(parse_uint(*f.rkey, "--rkey", 0, 0xffffffff));
        if (is_atomic(r.op) && *r.raddr % atomic_operand_bytes != 0)
            throw UsageError(fmt::format("--raddr {}: an atomic's target must be 8-byte aligned (e.g. {:#x} or {:#x})",
                                         *f.raddr, *r.raddr & ~std::uint64_t{7}, (*r.raddr & ~std::uint64_t{7}) + 8));
    }
    return r;
}

ParsedModify parse_modify_flags(const ModifyFlags& f)
{
    ParsedModify out;
    ModifyRequest& r = out.request;
    auto num = [](const std::optional<std::string>& text, const char* flag, std::uint64_t lo, std::uint64_t hi,
                  auto& field) {
        if (text)
            field = static_cast<typename std::remove_reference_t<decltype(field)>::value_type>(
                parse_uint(*text, flag, lo, hi));
    };
    auto use = [](const decode::Parsed& p, const char* flag) {
        if (!p.ok)
            throw UsageError(fmt::format("{}: {}", flag, p.error));
        return p.value;
    };
    auto timer = [&out](const decode::ParsedCode& p, std::optional<std::uint8_t>& field, const char* flag) {
        if (!p.ok)
            throw UsageError(fmt::format("{}: {}", flag, p.error));
        field = p.code;
        if (p.from_duration)
            out.notes.push_back(p.summary);
    };

    if (f.state)
        r.state = parse_state(*f.state, "--state");
    if (f.cur_state)
        r.cur_state = parse_state(*f.cur_state, "--cur-state");
    num(f.port, "--ib-port", 1, 255, r.port);
    num(f.pkey_index, "--pkey-index", 0, decode::max_pkey_index, r.pkey_index);
    num(f.qkey, "--qkey", 0, 0xffffffff, r.qkey);
    if (f.access)
        r.access = use(decode::parse_access(*f.access), "--access");
    if (f.mtu)
        r.path_mtu = static_cast<ibv_mtu>(use(decode::parse_mtu_bytes(*f.mtu), "--mtu"));
    if (f.dest_qpn)
        r.dest_qpn = parse_qpn(*f.dest_qpn, "--dest-qpn");
    num(f.rq_psn, "--rq-psn", 0, 0xffffff, r.rq_psn);
    num(f.sq_psn, "--sq-psn", 0, 0xffffff, r.sq_psn);
    num(f.max_rd_atomic, "--max-rd-atomic", 0, 255, r.max_rd_atomic);
    num(f.max_dest_rd_atomic, "--max-dest-rd-atomic", 0, 255, r.max_dest_rd_atomic);
    if (f.min_rnr_timer)
        timer(decode::parse_rnr_timer(*f.min_rnr_timer), r.min_rnr_timer, "--min-rnr-timer");
    if (f.timeout)
        timer(decode::parse_timeout(*f.timeout), r.timeout, "--qp-timeout");
    num(f.retry_cnt, "--retry-cnt", 0, decode::max_retry, r.retry_cnt);
    num(f.rnr_retry, "--rnr-retry", 0, decode::max_retry, r.rnr_retry);
    if (f.dgid) {
        r.dgid = parse_gid(*f.dgid);
        if (!r.dgid)
            throw UsageError(fmt::format("--dgid '{}': expected a GID in IPv6 form (fe80::1, "
                                         "0000:...:0201) or an IPv4 address",
                                         *f.dgid));
    }
    num(f.dlid, "--dlid", 0, 0xffff, r.dlid);
    num(f.sl, "--sl", 0, decode::max_sl, r.sl);
    num(f.sgid_index, "--gid-index", 0, 255, r.sgid_index);
    num(f.hop_limit, "--hop-limit", 0, 255, r.hop_limit);
    num(f.traffic_class, "--tclass", 0, decode::max_traffic_class, r.traffic_class);
    num(f.flow_label, "--flow-label", 0, decode::max_flow_label, r.flow_label);
    num(f.static_rate, "--static-rate", 0, 255, r.static_rate);
    if (f.path_mig_state) {
        const std::string l = lower(*f.path_mig_state);
        auto it = std::find_if(mig_names.begin(), mig_names.end(), [&](const auto& m) { return m.name == l; });
        if (it == mig_names.end())
            throw UsageError(fmt::format("--path-mig-state '{}': valid states are migrated, rearm, armed",
                                         *f.path_mig_state));
        r.path_mig_state = it->state;
    }
    return out;
}

}  // namespace qps::qp
