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

std::uint64_t parse_uint(const std::string& text, const char* what, std::uint64_t lo, std::uint64_t hi)
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
        throw UsageError(fmt::format("{} '{}': expected a whole number in {}..{} (decimal or 0x hex)", what, text,
                                     lo, hi));
    return v;
}

std::uint32_t parse_qpn(const std::string& text, const char* what)
{
    return static_cast<std::uint32_t>(parse_uint(text, what, 0, 0xffffff));
}

namespace {
// The state of `table` named `text` (any case), else a UsageError naming
// `what` and the valid `words`.
template <class Table>
auto state_named(const Table& table, const std::string& text, const char* what, const std::vector<std::string>& words)
{
    const std::string l = lower(text);
    for (const auto& e : table)
        if (e.name == l)
            return e.state;
    throw UsageError(fmt::format("{} '{}': valid states are {}", what, text, fmt::join(words, ", ")));
}
}  // namespace

ibv_qp_state parse_state(const std::string& text, const char* what)
{
    return state_named(state_names, text, what, state_words());
}

ibv_mig_state parse_mig_state(const std::string& text, const char* what)
{
    return state_named(mig_names, text, what, mig_state_words());
}

ibv_qp_type parse_qp_type(const std::string& text)
{
    if (const auto t = decode::created_qp_type(text))
        return *t;
    throw UsageError(fmt::format("{} '{}': valid types are {}", given(Given::transport), text,
                                 fmt::join(qp_type_words(), ", ")));
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
std::vector<std::string> qp_type_words() { return decode::created_qp_type_words(); }
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

}  // namespace qps::qp
