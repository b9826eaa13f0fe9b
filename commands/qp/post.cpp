// `qpscope qp post QPN`: one test work request, its completion decoded.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/qp.hpp"
#include "src/error.hpp"
#include "src/ops/qp_session.hpp"
#include "src/qp/options.hpp"

namespace qps::cli {

namespace {
struct PostOptions {
    std::string qpn;
    std::string op = "send";
    std::uint32_t size = 64;
    unsigned wait_ms = 0;
    std::string raddr, rkey;
};
}  // namespace

void register_qp_post(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<PostOptions>();
    CLI::App* cmd = parent.add_subcommand(
        "post", "Post one send, RDMA write or RDMA read on a held QP and wait (bounded) for its completion");
    cmd->add_option("qpn", o->qpn, "QP number (hex 0x.. or decimal)")->required()->type_name(value_type::qpn);
    cmd->add_option("--op", o->op, "send, write or read")->transform(one_of({"send", "write", "read"}));
    cmd->add_option("-s,--size", o->size, "Bytes (within the QP's 64 KiB test buffer)")
        ->check(CLI::Range(0u, 65536u));
    cmd->add_option("--wait", o->wait_ms, "Milliseconds to wait for the completion (default: the QP's derived "
                                          "retry wait x 1.5 + 2 s, at least 5 s)")
        ->check(CLI::Range(1u, 3600u * 1000));
    cmd->add_option("--raddr", o->raddr, "Remote address for write/read when the peer is not held here");
    cmd->add_option("--rkey", o->rkey, "Remote key for write/read when the peer is not held here");
    cmd->callback([o, &global] {
        qp::PostSpec spec;
        spec.qpn = qp::parse_qpn(o->qpn);
        spec.operation = o->op;
        spec.size = o->size;
        spec.wait = std::chrono::milliseconds(o->wait_ms);
        if (!o->raddr.empty())
            spec.raddr = qp::parse_uint(o->raddr, "--raddr", 0, ~0ull);
        if (!o->rkey.empty())
            spec.rkey = static_cast<std::uint32_t>(qp::parse_uint(o->rkey, "--rkey", 0, 0xffffffff));
        const qp::PostOutcome outcome = qp::post_qp(spec);
        emit(global, "qp post", [&](fmt_out::Printer& p) { fmt_out::render_post(outcome, p); });
        if (outcome.timed_out)
            throw ReportedFailure{exit_timeout};
        if (!outcome.completion || outcome.completion->status.raw != IBV_WC_SUCCESS)
            throw ReportedFailure{exit_failed};
    });
}

}  // namespace qps::cli
