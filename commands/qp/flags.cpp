#include "commands/qp/flags.hpp"

#include <fmt/format.h>
#include <type_traits>

#include "commands/option_values.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"

namespace qps::commands {

void add_attribute_flags(CLI::App* cmd, ModifyFlags& f)
{
    // A flag given twice: the last one wins, as in most tools.
    cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    const char* g = "QP attributes";
    auto* port = cmd->add_option("-i,--ib-port", f.port, "Physical port (1-based)")->type_name(value_type::port)->group(g);
    add_old_spelling(cmd, "--port", f.port, port);
    cmd->add_option("--pkey-index", f.pkey_index, "P_Key table index")->group(g);
    cmd->add_option("--qkey", f.qkey, "Q_Key (UD); bit 31 set = controlled, refused")->group(g);
    cmd->add_option("--access", f.access,
                    "Remote access, comma list: local_write,remote_write,remote_read,remote_atomic,...")
        ->check(comma_list_of(qp::access_words()))
        ->type_name("LIST")
        ->group(g);
    cmd->add_option("--mtu", f.mtu, "Path MTU in bytes: 256, 512, 1024, 2048, 4096")
        ->transform(one_of(qp::mtu_words()))
        ->group(g);
    cmd->add_option("--dest-qpn", f.dest_qpn, "Remote QPN (hex 0x.. or decimal)")
        ->type_name(value_type::qpn)
        ->group(g);
    cmd->add_option("--rq-psn", f.rq_psn, "Receive queue PSN (24 bits)")->group(g);
    cmd->add_option("--sq-psn", f.sq_psn, "Send queue PSN (24 bits)")->group(g);
    cmd->add_option("--max-rd-atomic", f.max_rd_atomic, "Outstanding RDMA reads/atomics as initiator")->group(g);
    cmd->add_option("--max-dest-rd-atomic", f.max_dest_rd_atomic, "Outstanding RDMA reads/atomics as target")
        ->group(g);
    cmd->add_option("--min-rnr-timer", f.min_rnr_timer, "RNR NAK timer: code 0-31 or a duration (e.g. 1.28ms)")
        ->group(g);
    auto* timeout =
        cmd->add_option("--qp-timeout", f.timeout,
                        "Local ACK timeout: code 0-31 (4.096 us x 2^code, 0 = infinite) or a duration (e.g. 67ms)")
            ->type_name("CODE|DURATION")
            ->group(g);
    add_old_spelling(cmd, "--timeout", f.timeout, timeout);
    cmd->add_option("--retry-cnt", f.retry_cnt, "Transport retries 0-7")->group(g);
    cmd->add_option("--rnr-retry", f.rnr_retry, "RNR retries 0-7 (7 = infinite)")->group(g);
    cmd->add_option("--dgid", f.dgid, "Destination GID (IPv6 form) or the peer's IPv4 address (RoCE)")->group(g);
    cmd->add_option("--dlid", f.dlid, "Destination LID (InfiniBand)")->group(g);
    cmd->add_option("--sl", f.sl, "Service level 0-15")->group(g);
    auto* gid_index = cmd->add_option("-x,--gid-index", f.sgid_index, "Source GID table index")->group(g);
    add_old_spelling(cmd, "--sgid-index", f.sgid_index, gid_index);
    cmd->add_option("--hop-limit", f.hop_limit, "GRH hop limit")->group(g);
    auto* tclass = cmd->add_option("--tclass", f.traffic_class, "GRH traffic class (DSCP << 2 | ECN)")->group(g);
    add_old_spelling(cmd, "--traffic-class", f.traffic_class, tclass);
    cmd->add_option("--flow-label", f.flow_label, "GRH flow label (20 bits)")->group(g);
    cmd->add_option("--static-rate", f.static_rate, "Static rate code (ibv_rate)")->group(g);
    cmd->add_option("--path-mig-state", f.path_mig_state, "migrated, rearm or armed")
        ->transform(one_of(qp::mig_state_words()))
        ->group(g);
}

qp::PostRequest parse_post_flags(const PostFlags& f)
{
    qp::PostRequest r;
    r.count = f.count.value_or(1);
    if (f.recv) {
        // Receives of the QP's whole buffer: a send's operands have no place.
        const std::pair<bool, const char*> operands[] = {
            {f.op != "send", "--op"}, {f.size.has_value(), "-s"},        {f.raddr.has_value(), "--raddr"},
            {f.rkey.has_value(), "--rkey"}, {f.add.has_value(), "--add"}, {f.compare.has_value(), "--compare"},
            {f.swap.has_value(), "--swap"}};
        for (const auto& [present, flag] : operands)
            if (present)
                throw UsageError(fmt::format("--recv posts receives of the QP's whole buffer: {} belongs to a send, "
                                             "write, read or atomic (leave it out, or leave out --recv)",
                                             flag));
        r.recv = true;
        return r;
    }
    r.op = qp::parse_post_op(f.op);
    const std::string_view name = qp::post_op_name(r.op);
    constexpr std::uint64_t any = ~std::uint64_t{0};

    // Operands that belong to another operation are refused, not ignored:
    // a typo in --op would otherwise post something else.
    if (f.add && r.op != qp::PostOp::fadd)
        throw UsageError(fmt::format("--add {}: --add is the addend of --op fadd, not of --op {}", *f.add, name));
    for (const auto& [given, flag] : {std::pair{&f.compare, "--compare"}, std::pair{&f.swap, "--swap"}})
        if (*given && r.op != qp::PostOp::cas)
            throw UsageError(fmt::format("{} {}: {} is an operand of --op cas, not of --op {}", flag, **given, flag,
                                         name));
    if (r.op == qp::PostOp::fadd)
        r.compare_add = f.add ? qp::parse_uint(*f.add, "--add", 0, any) : 1;
    if (r.op == qp::PostOp::cas) {
        if (!f.compare || !f.swap)
            throw UsageError(fmt::format("--op cas needs both --compare N and --swap N (missing: {})",
                                         !f.compare && !f.swap ? "--compare, --swap"
                                         : !f.compare          ? "--compare"
                                                               : "--swap"));
        r.compare_add = qp::parse_uint(*f.compare, "--compare", 0, any);
        r.swap = qp::parse_uint(*f.swap, "--swap", 0, any);
    }

    if (qp::is_atomic(r.op)) {
        if (f.size && *f.size != qp::atomic_operand_bytes)
            throw UsageError(fmt::format("-s {}: --op {} works on one {}-byte operand (give -s {}, or leave -s out)",
                                         *f.size, name, qp::atomic_operand_bytes, qp::atomic_operand_bytes));
        r.size = qp::atomic_operand_bytes;
    } else if (f.size) {
        r.size = *f.size;
    }

    if (f.raddr.has_value() != f.rkey.has_value())
        throw UsageError(fmt::format("{} {}: give --raddr and --rkey together (the remote buffer's address and its "
                                     "key), or neither to use the peer's buffer when the holder has the peer",
                                     f.raddr ? "--raddr" : "--rkey", f.raddr ? *f.raddr : *f.rkey));
    if (f.raddr) {
        r.raddr = qp::parse_uint(*f.raddr, "--raddr", 0, any);
        r.rkey = static_cast<std::uint32_t>(qp::parse_uint(*f.rkey, "--rkey", 0, 0xffffffff));
        if (qp::is_atomic(r.op) && *r.raddr % qp::atomic_operand_bytes != 0)
            throw UsageError(fmt::format("--raddr {}: an atomic's target must be 8-byte aligned (e.g. {:#x} or {:#x})",
                                         *f.raddr, *r.raddr & ~std::uint64_t{7}, (*r.raddr & ~std::uint64_t{7}) + 8));
    }
    return r;
}

qp::ParsedModify parse_modify_flags(const ModifyFlags& f)
{
    qp::ParsedModify out;
    qp::ModifyRequest& r = out.request;
    auto num = [](const std::optional<std::string>& text, const char* flag, std::uint64_t lo, std::uint64_t hi,
                  auto& field) {
        if (text)
            field = static_cast<typename std::remove_reference_t<decltype(field)>::value_type>(
                qp::parse_uint(*text, flag, lo, hi));
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
        r.state = qp::parse_state(*f.state, "--state");
    if (f.cur_state)
        r.cur_state = qp::parse_state(*f.cur_state, "--cur-state");
    num(f.port, "--ib-port", 1, 255, r.port);
    num(f.pkey_index, "--pkey-index", 0, decode::max_pkey_index, r.pkey_index);
    num(f.qkey, "--qkey", 0, 0xffffffff, r.qkey);
    if (f.access)
        r.access = use(decode::parse_access(*f.access), "--access");
    if (f.mtu)
        r.path_mtu = static_cast<ibv_mtu>(use(decode::parse_mtu_bytes(*f.mtu), "--mtu"));
    if (f.dest_qpn)
        r.dest_qpn = qp::parse_qpn(*f.dest_qpn, "--dest-qpn");
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
        r.dgid = qp::parse_gid(*f.dgid);
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
    if (f.path_mig_state)
        r.path_mig_state = qp::parse_mig_state(*f.path_mig_state, "--path-mig-state");
    return out;
}

}  // namespace qps::commands
