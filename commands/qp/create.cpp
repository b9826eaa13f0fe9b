// `qpscope qp create`: a QP in the holder, optionally walked to a state, or
// a connected pair.
#include <memory>
#include <optional>

#include "commands/option_values.hpp"
#include "commands/qp/flags.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::commands {

namespace {
struct CreateOptions {
    std::string device;
    std::string type = "rc";
    std::uint32_t send_wr = 16, recv_wr = 16, send_sge = 1, recv_sge = 1, max_inline = 0, cq_depth = 0;
    bool no_sq_sig_all = false;
    std::string to;
    bool pair = false;
    unsigned idle = 600;
    std::optional<std::uint32_t> srq;
    std::string xrcd;
    ModifyFlags flags;
};
}  // namespace

void register_qp_create(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<CreateOptions>();
    CLI::App* cmd = parent.add_subcommand(
        "create", "Create a QP (or, with --pair, two connected QPs) and print the caps the device granted");
    add_device_option(cmd, o->device, DeviceUse::choose);
    auto* type = cmd->add_option("--transport", o->type, "QP type (transport)")->transform(one_of(qp::qp_type_words()));
    add_old_spelling(cmd, "-t,--type", o->type, type)->transform(one_of(qp::qp_type_words()));
    cmd->add_option("--send-wr", o->send_wr, "Send queue depth")->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--recv-wr", o->recv_wr, "Receive queue depth")->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--send-sge", o->send_sge, "Scatter/gather entries per send WR")->check(CLI::Range(1u, 1u << 16));
    cmd->add_option("--recv-sge", o->recv_sge, "Scatter/gather entries per receive WR")->check(CLI::Range(1u, 1u << 16));
    cmd->add_option("--max-inline", o->max_inline, "Inline data bytes")->check(CLI::Range(0u, 1u << 20));
    cmd->add_option("--cq-depth", o->cq_depth, "CQ entries (default: send-wr + recv-wr)")->check(CLI::Range(0u, 1u << 30));
    cmd->add_flag("--no-sq-sig-all", o->no_sq_sig_all, "Do not signal every send WR");
    cmd->add_option("--srq", o->srq, "Take receives from this held SRQ (qp srq create) instead of a receive queue "
                                     "of its own; --recv-wr and --recv-sge then do not apply")
        ->type_name("ID");
    cmd->add_option("--xrcd", o->xrcd, "--transport xrc-recv: the XRC domain it lives in, on FILE (opened, or "
                                       "created, as 'qp xrcd open FILE' does); needs a device with XRC")
        ->type_name("FILE");
    cmd->add_option("--to", o->to, "Walk the new QP to this state: init, rtr or rts (attributes below; "
                                   "required ones not given take stated defaults)")
        ->transform(one_of({"init", "rtr", "rts"}));
    cmd->add_flag("--pair", o->pair, "Create two QPs on the device and connect them to each other (to RTS "
                                     "unless --to says otherwise): a self-test of the device and port");
    cmd->add_option("--idle-timeout", o->idle, "Seconds a new holder waits without requests before it exits "
                                               "and releases everything")
        ->check(CLI::Range(1u, 7u * 24 * 3600));
    add_attribute_flags(cmd, o->flags);
    cmd->callback([o, &global] {
        ops::CreateSpec spec;
        spec.create.device = o->device;
        spec.create.type = qp::parse_qp_type(o->type);
        spec.create.send_wr = o->send_wr;
        spec.create.recv_wr = o->recv_wr;
        spec.create.send_sge = o->send_sge;
        spec.create.recv_sge = o->recv_sge;
        spec.create.max_inline = o->max_inline;
        spec.create.cq_depth = o->cq_depth;
        spec.create.sq_sig_all = !o->no_sq_sig_all;
        spec.create.srq = o->srq;
        spec.create.xrcd = absolute_path(o->xrcd);
        verbs::check_xrc_options(spec.create);  // before the holder starts
        spec.attributes = parse_modify_flags(o->flags);
        if (spec.attributes.request.port)
            spec.create.port = *spec.attributes.request.port;
        spec.target = ops::create_target(o->to, o->pair);
        spec.pair = o->pair;
        spec.idle = std::chrono::seconds(o->idle);
        const ops::CreateOutcome outcome = ops::create_qps(spec);
        emit(global, "qp create", [&](formatters::Printer& p) { formatters::render_create(outcome, p); });
    });
}

}  // namespace qps::commands
