#include "src/qp/transitions.hpp"

#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>

#include "src/decode/qp.hpp"

namespace qps::qp {

namespace {

// Shorthands for the table below.
constexpr std::uint32_t RC = type_bit(IBV_QPT_RC);
constexpr std::uint32_t UC = type_bit(IBV_QPT_UC);
constexpr std::uint32_t UD = type_bit(IBV_QPT_UD);
constexpr std::uint32_t RAW = type_bit(IBV_QPT_RAW_PACKET);
constexpr std::uint32_t XSEND = type_bit(IBV_QPT_XRC_SEND);  // the kernel's XRC_INI
constexpr std::uint32_t XRECV = type_bit(IBV_QPT_XRC_RECV);  // the kernel's XRC_TGT
constexpr std::uint32_t ALL = RC | UC | UD | RAW | XSEND | XRECV;

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

constexpr std::array<TransitionRule, 48> rules{{
    // Any state -> RESET; any state but RESET -> ERR. No attributes.
    {IBV_QPS_RESET, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_INIT, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_RTR, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_RTS, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_SQD, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_SQE, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_ERR, IBV_QPS_RESET, ALL, 0, 0},
    {IBV_QPS_INIT, IBV_QPS_ERR, ALL, 0, 0},
    {IBV_QPS_RTR, IBV_QPS_ERR, ALL, 0, 0},
    {IBV_QPS_RTS, IBV_QPS_ERR, ALL, 0, 0},
    {IBV_QPS_SQD, IBV_QPS_ERR, ALL, 0, 0},
    {IBV_QPS_SQE, IBV_QPS_ERR, ALL, 0, 0},
    {IBV_QPS_ERR, IBV_QPS_ERR, ALL, 0, 0},

    // RESET -> INIT: the port, the P_Key, and what the remote side may do
    // (connected) or the Q_Key (datagram).
    {IBV_QPS_RESET, IBV_QPS_INIT, RC | UC | XSEND | XRECV, PKEY | PORT | ACCESS, 0},
    {IBV_QPS_RESET, IBV_QPS_INIT, UD, PKEY | PORT | QKEY, 0},
    {IBV_QPS_RESET, IBV_QPS_INIT, RAW, PORT, 0},

    {IBV_QPS_INIT, IBV_QPS_INIT, RC | UC | XSEND | XRECV, 0, PKEY | PORT | ACCESS},
    {IBV_QPS_INIT, IBV_QPS_INIT, UD, 0, PKEY | PORT | QKEY},
    {IBV_QPS_INIT, IBV_QPS_INIT, RAW, 0, 0},

    // INIT -> RTR: the receive side. Connected QPs learn the remote QP and
    // path; a responder of RDMA reads/atomics (RC, XRC target) also its
    // inbound read depth and the RNR timer it advertises.
    {IBV_QPS_INIT, IBV_QPS_RTR, RC | XRECV, AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR,
     ALT | ACCESS | PKEY},
    {IBV_QPS_INIT, IBV_QPS_RTR, UC | XSEND, AV | MTU | DEST_QPN | RQ_PSN, ALT | ACCESS | PKEY},
    {IBV_QPS_INIT, IBV_QPS_RTR, UD, 0, PKEY | QKEY},
    {IBV_QPS_INIT, IBV_QPS_RTR, RAW, 0, 0},

    // RTR -> RTS: the send side. Reliable senders get their ACK timeout,
    // retry counts and outbound read depth.
    {IBV_QPS_RTR, IBV_QPS_RTS, RC, TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC,
     CUR | ALT | ACCESS | MIN_RNR | MIG},
    {IBV_QPS_RTR, IBV_QPS_RTS, XSEND, TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC,
     CUR | ALT | ACCESS | MIG},
    {IBV_QPS_RTR, IBV_QPS_RTS, XRECV, TIMEOUT | SQ_PSN, CUR | ALT | ACCESS | MIN_RNR | MIG},
    {IBV_QPS_RTR, IBV_QPS_RTS, UC, SQ_PSN, CUR | ALT | ACCESS | MIG},
    {IBV_QPS_RTR, IBV_QPS_RTS, UD, SQ_PSN, CUR | QKEY},
    {IBV_QPS_RTR, IBV_QPS_RTS, RAW, 0, RATE},

    {IBV_QPS_RTS, IBV_QPS_RTS, RC | XRECV, 0, CUR | ACCESS | ALT | MIG | MIN_RNR},
    {IBV_QPS_RTS, IBV_QPS_RTS, UC | XSEND, 0, CUR | ACCESS | ALT | MIG},
    {IBV_QPS_RTS, IBV_QPS_RTS, UD, 0, CUR | QKEY},
    {IBV_QPS_RTS, IBV_QPS_RTS, RAW, 0, RATE},

    // Send queue drain and back.
    {IBV_QPS_RTS, IBV_QPS_SQD, RC | UC | UD | XSEND | XRECV, 0, SQD_NOTIFY},
    {IBV_QPS_RTS, IBV_QPS_SQD, RAW, 0, 0},

    {IBV_QPS_SQD, IBV_QPS_RTS, RC | XRECV, 0, CUR | ALT | ACCESS | MIN_RNR | MIG},
    {IBV_QPS_SQD, IBV_QPS_RTS, UC | XSEND, 0, CUR | ALT | ACCESS | MIG},
    {IBV_QPS_SQD, IBV_QPS_RTS, UD, 0, CUR | QKEY},
    {IBV_QPS_SQD, IBV_QPS_RTS, RAW, 0, 0},

    // While drained, most of the path may be changed.
    {IBV_QPS_SQD, IBV_QPS_SQD, RC, 0,
     PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | DEST_RD_ATOMIC | ALT | ACCESS | PKEY |
         MIN_RNR | MIG},
    {IBV_QPS_SQD, IBV_QPS_SQD, XSEND, 0,
     PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | ALT | ACCESS | PKEY | MIG},
    {IBV_QPS_SQD, IBV_QPS_SQD, XRECV, 0,
     PORT | AV | TIMEOUT | DEST_RD_ATOMIC | ALT | ACCESS | PKEY | MIN_RNR | MIG},
    {IBV_QPS_SQD, IBV_QPS_SQD, UC, 0, AV | ALT | ACCESS | PKEY | MIG},
    {IBV_QPS_SQD, IBV_QPS_SQD, UD, 0, PKEY | QKEY},
    {IBV_QPS_SQD, IBV_QPS_SQD, RAW, 0, 0},

    // Recovering from a send queue error (unreliable QPs only).
    {IBV_QPS_SQE, IBV_QPS_RTS, UC, 0, CUR | ACCESS},
    {IBV_QPS_SQE, IBV_QPS_RTS, UD, 0, CUR | QKEY},
    {IBV_QPS_SQE, IBV_QPS_RTS, RAW, 0, 0},
}};

constexpr bool rules_well_formed()
{
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const auto& a = rules[i];
        if (a.types == 0 || (a.types & ~ALL) || (a.required & a.optional) ||
            ((a.required | a.optional) & IBV_QP_STATE))
            return false;
        for (std::size_t j = i + 1; j < rules.size(); ++j) {
            const auto& b = rules[j];
            if (a.cur == b.cur && a.next == b.next && (a.types & b.types))
                return false;
        }
    }
    return true;
}
static_assert(rules_well_formed(), "each (cur, next, type) once; required and optional disjoint");

constexpr bool all_attrs_known()
{
    for (const auto& r : rules)
        if ((r.required | r.optional) & ~static_cast<std::uint32_t>(decode::libibverbs_qp_attr_bits))
            return false;
    return true;
}
static_assert(all_attrs_known(), "every attribute is an ibv_qp_attr_mask bit");

const TransitionRule* find_rule(ibv_qp_state cur, ibv_qp_state next, ibv_qp_type type)
{
    const std::uint32_t t = type_bit(type);
    if (t == 0)
        return nullptr;
    for (const auto& r : rules)
        if (r.cur == cur && r.next == next && (r.types & t))
            return &r;
    return nullptr;
}

std::string state_name(ibv_qp_state s) { return *decode::qp_state(s).name; }
std::string type_name(ibv_qp_type t) { return *decode::qp_type(t).name; }

std::string attr_list(std::uint32_t mask) { return fmt::format("{}", fmt::join(decode::qp_attr_options(mask), ", ")); }

std::string valid_attributes(const TransitionCheck& c)
{
    if (c.required == 0 && c.optional == 0)
        return "valid attributes: none (state only)";
    const std::string req = c.required ? "required " + attr_list(c.required) : "none required";
    const std::string opt = c.optional ? "optional " + attr_list(c.optional) : "nothing optional";
    return fmt::format("valid attributes: {}; {}", req, opt);
}

bool reliable(ibv_qp_type t) { return t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND || t == IBV_QPT_XRC_RECV; }

}  // namespace

std::span<const TransitionRule> transition_rules() { return rules; }

TransitionCheck check_transition(ibv_qp_state cur, ibv_qp_state next, ibv_qp_type type,
                                 std::uint32_t mask)
{
    TransitionCheck c;
    const TransitionRule* r = find_rule(cur, next, type);
    if (!r)
        return c;
    mask &= ~static_cast<std::uint32_t>(IBV_QP_STATE);
    c.exists = true;
    c.required = r->required;
    c.optional = r->optional;
    c.missing = r->required & ~mask;
    c.forbidden = mask & ~(r->required | r->optional);
    // The kernel's own check, kept even though the table already implies it.
    if ((mask & CUR) && cur != IBV_QPS_RTR && cur != IBV_QPS_RTS && cur != IBV_QPS_SQD &&
        cur != IBV_QPS_SQE)
        c.forbidden |= CUR;
    return c;
}

std::vector<ibv_qp_state> next_states(ibv_qp_state cur, ibv_qp_type type)
{
    std::vector<ibv_qp_state> out;
    constexpr std::array<ibv_qp_state, 7> order{IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
                                                IBV_QPS_SQE,  IBV_QPS_RESET, IBV_QPS_ERR};
    for (auto next : order)
        if (find_rule(cur, next, type))
            out.push_back(next);
    return out;
}

std::string explain(const TransitionCheck& check, ibv_qp_state cur, ibv_qp_state next,
                    ibv_qp_type type)
{
    const std::string move = fmt::format("{}→{}", state_name(cur), state_name(next));
    const std::string tname = type_name(type);

    if (type == IBV_QPT_DRIVER)
        return fmt::format("{} on DRIVER: DRIVER QPs follow their provider's own transition rules, "
                           "which qpscope does not know",
                           move);
    if ((type_bit(type) & ALL) == 0)
        return fmt::format("{}: qpscope has no transition rules for QP type {}", move, tname);

    if (!check.exists) {
        std::string s = fmt::format("{} does not exist for {}", move, tname);
        if (cur == IBV_QPS_UNKNOWN || next == IBV_QPS_UNKNOWN)
            s += " (UNKNOWN is not a state a QP can be moved from or to)";
        else if (next == IBV_QPS_SQE)
            s += " (only the device moves a QP to SQE, after a send error)";
        else if (cur == IBV_QPS_SQE && reliable(type))
            s += fmt::format(" ({} QPs never enter SQE: a send error moves them to ERR)", tname);
        else if (cur == IBV_QPS_RESET && next == IBV_QPS_ERR)
            s += " (a QP leaves RESET only for INIT)";
        const auto valid = next_states(cur, type);
        if (valid.empty()) {
            s += fmt::format("; there are no transitions from {}", state_name(cur));
        } else {
            std::vector<std::string> names;
            for (auto v : valid)
                names.push_back(state_name(v));
            s += fmt::format("; valid transitions from {} are: {}", state_name(cur), fmt::join(names, ", "));
        }
        return s;
    }

    if (check.missing == 0 && check.forbidden == 0)
        return fmt::format("{} on {} is allowed; {}", move, tname, valid_attributes(check));

    std::string s = fmt::format("{} on {}", move, tname);
    if (check.missing)
        s += fmt::format(" needs {} (missing)", attr_list(check.missing));
    if (check.forbidden) {
        s += fmt::format("{} does not take {} (forbidden", check.missing ? ";" : "",
                         attr_list(check.forbidden));
        if (check.forbidden & CUR)
            s += "; cur-state is only accepted on the way to RTS from RTR, RTS, SQD or SQE";
        s += ")";
    }
    s += "; " + valid_attributes(check);
    return s;
}

}  // namespace qps::qp
