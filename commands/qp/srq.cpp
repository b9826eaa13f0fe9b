// `qpscope qp srq create|query|modify|destroy`: shared receive queues in
// this user's holder, beside its QPs (`qp create --srq ID` attaches one).
#include <memory>
#include <optional>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/srq.hpp"
#include "src/error.hpp"
#include "src/ops/srq_session.hpp"

namespace qps::commands {

namespace {

struct SrqCreateOptions {
    std::string device;
    std::string xrcd;
    std::uint32_t max_wr = 16, max_sge = 1, limit = 0;
    unsigned idle = 600;
};

struct SrqModifyOptions {
    std::uint32_t id = 0;
    std::optional<std::uint32_t> limit, max_wr;
};

struct SrqDestroyOptions {
    std::optional<std::uint32_t> id;
    bool all = false;
};

void register_srq_create(CLI::App& srq, const GlobalOptions& global)
{
    auto o = std::make_shared<SrqCreateOptions>();
    CLI::App* cmd = srq.add_subcommand("create", "Create a shared receive queue in the holder (starting it) and "
                                                 "print what the device granted; qp create attaches QPs to it by its number");
    add_device_option(cmd, o->device, DeviceUse::choose);
    cmd->add_option("--max-wr", o->max_wr, "Receives the SRQ holds (its depth)")->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--max-sge", o->max_sge, "Scatter/gather entries per receive")->check(CLI::Range(1u, 1u << 16));
    cmd->add_option("--limit", o->limit,
                    "Arm SRQ_LIMIT_REACHED: the device raises it once fewer receives than this are left (0: not armed)")
        ->check(CLI::Range(0u, 1u << 30));
    cmd->add_option("--xrcd", o->xrcd, "An XRC SRQ of the XRC domain on FILE (qp xrcd open), with a CQ of its own; "
                                       "needs a device with XRC")
        ->type_name("FILE");
    cmd->add_option("--idle-timeout", o->idle, "Seconds a new holder waits without requests before it exits "
                                               "and releases everything")
        ->check(CLI::Range(1u, 7u * 24 * 3600));
    cmd->callback([o, &global] {
        ops::SrqCreateSpec spec;
        spec.xrcd = absolute_path(o->xrcd);
        spec.device = o->device;
        spec.max_wr = o->max_wr;
        spec.max_sge = o->max_sge;
        spec.limit = o->limit;
        spec.idle = std::chrono::seconds(o->idle);
        const report::SrqReport r = ops::create_srq(spec);
        emit(global, "qp srq create", [&](formatters::Printer& p) { formatters::render_srq(r, p); });
    });
}

void register_srq_query(CLI::App& srq, const GlobalOptions& global)
{
    auto id = std::make_shared<std::uint32_t>(0);
    CLI::App* cmd = srq.add_subcommand("query", "Show a held SRQ: depth, SGEs, srq_limit (0: not armed or fired), "
                                                "the receives posted and the QPs it serves");
    cmd->add_option("id", *id, "The SRQ's number (as qp srq create printed it)")->required()->type_name("ID");
    cmd->callback([id, &global] {
        const report::SrqReport r = ops::query_srq(*id);
        emit(global, "qp srq query", [&](formatters::Printer& p) { formatters::render_srq(r, p); });
    });
}

void register_srq_modify(CLI::App& srq, const GlobalOptions& global)
{
    auto o = std::make_shared<SrqModifyOptions>();
    CLI::App* cmd = srq.add_subcommand("modify", "ibv_modify_srq: arm SRQ_LIMIT_REACHED again (--limit; 0 "
                                                 "disarms) or resize the SRQ where the provider can (--max-wr)");
    cmd->add_option("id", o->id, "The SRQ's number")->required()->type_name("ID");
    cmd->add_option("--limit", o->limit, "srq_limit: raise SRQ_LIMIT_REACHED below this many receives")
        ->check(CLI::Range(0u, 1u << 30));
    cmd->add_option("--max-wr", o->max_wr, "The new depth")->check(CLI::Range(1u, 1u << 30));
    cmd->callback([o, &global] {
        if (!o->limit && !o->max_wr)
            throw UsageError("qp srq modify: give --limit N or --max-wr N");
        const report::SrqReport r = ops::modify_srq(o->id, o->limit, o->max_wr);
        emit(global, "qp srq modify", [&](formatters::Printer& p) { formatters::render_srq(r, p); });
    });
}

void register_srq_destroy(CLI::App& srq, const GlobalOptions& global)
{
    auto o = std::make_shared<SrqDestroyOptions>();
    CLI::App* cmd = srq.add_subcommand("destroy", "Destroy a held SRQ (refused while a QP uses it), or all of "
                                                  "them (--all); the holder exits when nothing is left");
    auto* id = cmd->add_option("id", o->id, "The SRQ's number")->type_name("ID");
    auto* all = cmd->add_flag("--all", o->all, "Destroy every held SRQ (none may serve a QP)");
    id->excludes(all);
    cmd->callback([o, &global] {
        if (!o->id && !o->all)
            throw UsageError("qp srq destroy: give an SRQ number or --all");
        const ops::SrqDestroyOutcome outcome = ops::destroy_srqs(o->all ? std::nullopt : o->id);
        emit(global, "qp srq destroy", [&](formatters::Printer& p) { formatters::render_srq_destroy(outcome, p); });
    });
}

}  // namespace

void register_qp_srq(CLI::App& parent, const GlobalOptions& global)
{
    CLI::App* srq = parent.add_subcommand("srq", "Shared receive queues (SRQs) in the holder: create, query, "
                                                 "modify (srq_limit), destroy");
    srq->require_subcommand(1);
    register_srq_create(*srq, global);
    register_srq_query(*srq, global);
    register_srq_modify(*srq, global);
    register_srq_destroy(*srq, global);
}

}  // namespace qps::commands
