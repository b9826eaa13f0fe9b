#include "commands/qp/flags.hpp"

#include "commands/option_values.hpp"

namespace qps::commands {

void add_attribute_flags(CLI::App* cmd, qp::ModifyFlags& f)
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

}  // namespace qps::commands
