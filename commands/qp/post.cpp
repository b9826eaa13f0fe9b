// `qpscope qp post QPN`: one test work request, its completion decoded.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/flags.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/error.hpp"
#include "src/ops/qp_session.hpp"

namespace qps::commands {

namespace {
struct PostOptions {
    std::string qpn;
    PostFlags flags;
    unsigned wait_ms = 0;
};
}  // namespace

void register_qp_post(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<PostOptions>();
    PostFlags& f = o->flags;
    CLI::App* cmd = parent.add_subcommand("post", "Post a send, RDMA write, RDMA read or atomic (fetch-and-add, "
                                                  "compare-and-swap) on a held QP and wait (bounded) for its "
                                                  "completion; or post receives (--recv), into its SRQ when it "
                                                  "has one");
    cmd->add_option("qpn", o->qpn, "QP number (hex 0x.. or decimal)")->required()->type_name(value_type::qpn);
    cmd->add_option("--op", f.op, "send, write, read, fadd (fetch-and-add) or cas (compare-and-swap); the atomics "
                                  "need an RC QP")
        ->transform(one_of(qp::post_op_words()));
    cmd->add_option("-s,--size", f.size, "Bytes (within the QP's 64 KiB test buffer; default 64, the atomics 8)")
        ->check(CLI::Range(0u, 65536u));
    cmd->add_option("--count", f.count, "Work requests posted in one chain (default 1): sends each signalled, all "
                                        "waited for; with --recv, the receives")
        ->check(CLI::Range(1u, 65536u));
    cmd->add_flag("--recv", f.recv, "Post receives of the QP's whole buffer instead: into the QP's SRQ when it "
                                    "takes its receives from one (sends to such a QP take them from the SRQ, which "
                                    "the holder does not fill), else its own receive queue");
    cmd->add_option("--wait", o->wait_ms, "Milliseconds to wait for the completion (default: the QP's derived "
                                          "retry wait x 1.5 + 2 s, at least 5 s)")
        ->check(CLI::Range(1u, 3600u * 1000));
    cmd->add_option("--raddr", f.raddr, "Remote address for write/read/fadd/cas when the peer is not held here "
                                        "(8-byte aligned for the atomics)")
        ->type_name("ADDR");
    cmd->add_option("--rkey", f.rkey, "Remote key for write/read/fadd/cas when the peer is not held here")
        ->type_name("KEY");
    cmd->add_option("--add", f.add, "fadd: the value added to the remote 8 bytes (decimal or 0x hex; default 1)")
        ->type_name("N");
    cmd->add_option("--compare", f.compare, "cas: the value the remote 8 bytes are compared with (required)")
        ->type_name("N");
    cmd->add_option("--swap", f.swap, "cas: the value written when they are equal (required)")->type_name("N");
    cmd->callback([o, &global] {
        ops::PostSpec spec;
        spec.qpn = qp::parse_qpn(o->qpn);
        spec.request = parse_post_flags(o->flags);
        spec.wait = std::chrono::milliseconds(o->wait_ms);
        const ops::PostOutcome outcome = ops::post_qp(spec);
        emit(global, "qp post", [&](formatters::Printer& p) { formatters::render_post(outcome, p); });
        if (spec.request.recv)
            return;
        if (outcome.timed_out)
            throw ReportedFailure{exit_timeout};
        if (!outcome.completion || outcome.completion->status.raw != IBV_WC_SUCCESS)
            throw ReportedFailure{exit_failed};
    });
}

}  // namespace qps::commands
