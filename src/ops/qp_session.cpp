#include "src/ops/qp_session.hpp"

#include <fmt/format.h>

#include "src/decode/gid.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/health/preflight.hpp"
#include "src/net/interrupt.hpp"
#include "src/ops/holder_client.hpp"
#include "src/qp/plan.hpp"
#include "src/verbs/gid_choice.hpp"
#include "src/verbs/handles.hpp"

namespace qps::ops {

namespace {

Json modify_call(std::uint32_t qpn, const qp::ModifyRequest& r, bool dry_run)
{
    return holder_call("modify", Json{{"qpn", qpn}, {"attributes", qp::to_json(r)}, {"dry_run", dry_run}});
}

[[noreturn]] void refused(std::uint32_t qpn, const Json& result)
{
    const int err = result.value("errno", 0);
    throw SystemError(fmt::format("ibv_modify_qp({:#x}, mask {})", qpn,
                                  fmt::join(decode::qp_attr_options(result.value("mask", 0u)), "|")),
                      err, "the checks before the call passed; see 'qp modify --dry-run' for what was sent");
}

// Walks a new QP through `steps`, recording each.
void walk(std::uint32_t qpn, const std::vector<qp::Step>& steps, CreateOutcome& out)
{
    ibv_qp_state cur = IBV_QPS_RESET;
    for (const qp::Step& s : steps) {
        const Json result = modify_call(qpn, s.request, false);
        if (result.value("refused", false))
            refused(qpn, result);
        out.steps.push_back({qpn, cur, *s.request.state, result.value("mask", 0u), s.defaulted});
        cur = *s.request.state;
    }
}

}  // namespace

namespace {

// The local checks before the holder is asked for anything: the device
// file, the device's transport and the port's state when the QPs are to be
// connected (--pair, --to rtr/rts: refused on iWARP; a QP in RESET or INIT
// needs no link and no connection path), the source GID index, the path
// MTU, and locked memory for the registered buffers.
void check_create_locally(const CreateSpec& spec)
{
    health::PreflightSpec p;
    p.device = spec.create.device;
    p.port = spec.create.port;
    const int count = spec.pair ? 2 : 1;
    p.memlock_bytes = std::uint64_t{verbs::pinned_bytes(spec.create.buffer_size)} * count;
    p.memlock_what = count == 1 ? fmt::format("the QP's registered buffer ({} bytes, for qp post)", spec.create.buffer_size)
                                : fmt::format("the {} QPs' registered buffers ({} bytes each, for qp post)", count,
                                              spec.create.buffer_size);
    p.connects = connects(spec);
    if (spec.attributes.request.sgid_index)
        p.gid_index = *spec.attributes.request.sgid_index;
    if (spec.attributes.request.path_mtu && p.connects)
        p.mtu = *spec.attributes.request.path_mtu;
    health::preflight(p);
}

}  // namespace

ibv_qp_state create_target(const std::string& to, bool pair)
{
    return to.empty() ? (pair ? IBV_QPS_RTS : IBV_QPS_RESET) : qp::parse_state(to, "--to");
}

bool connects(const CreateSpec& spec)
{
    return spec.target == IBV_QPS_RTR || spec.target == IBV_QPS_RTS;
}

CreateOutcome create_qps(const CreateSpec& spec)
{
    check_create_locally(spec);
    CreateOutcome out;
    out.notes = spec.attributes.notes;
    const ClientOptions start{true, spec.idle};
    const int count = spec.pair ? 2 : 1;
    std::vector<Json> created;
    try {
        for (int i = 0; i < count; ++i) {
            try {
                created.push_back(holder_call("create", to_json(spec.create), start));
            } catch (const InterruptedAfterRequest& e) {
                throw InterruptedAfterRequest(
                    fmt::format("{} (it had the request: it creates the QP and, its reply not taken, destroys it)",
                                e.what()),
                    e.signal);
            }
        }

        if (spec.target != IBV_QPS_RESET) {
            const std::string device = created[0].at("device").get<std::string>();
            const verbs::GidChoice gid = verbs::choose_gid(device, spec.create.port, spec.attributes.request.sgid_index);
            for (int i = 0; i < count; ++i) {
                qp::ModifyRequest given = spec.attributes.request;
                given.port = spec.create.port;
                if (spec.pair) {  // each QP's peer is the other one, on the same port
                    given.dest_qpn = created[1 - i].at("qpn").get<std::uint32_t>();
                    if (gid.found) {
                        given.dgid = gid.gid;
                        given.sgid_index = gid.index;
                    }
                }
                if (given.has_av() && !given.sgid_index && gid.found)
                    given.sgid_index = gid.index;
                const auto mtu = gid.active_mtu ? static_cast<ibv_mtu>(gid.active_mtu) : IBV_MTU_1024;
                const auto steps = qp::plan_steps(spec.create.type, spec.target, given, mtu);
                walk(created[i].at("qpn").get<std::uint32_t>(), steps, out);
            }
            if (gid.found && spec.pair)
                out.notes.push_back(fmt::format("GID index {} chosen: {}", gid.index, gid.why));
        }
        for (const Json& c : created)
            out.qps.push_back(report::build_qp_report(holder_call("query", Json{{"qpn", c.at("qpn")}})));
    } catch (...) {
        // A failed or interrupted create leaves nothing behind: destroy what
        // it made (the holder exits when that was all it held), an interrupt
        // set aside until that is done.
        const net::InterruptSetAside aside;
        for (const Json& c : created) {
            try {
                holder_call("destroy", Json{{"qpn", c.at("qpn")}});
            } catch (const std::exception&) {  // the original error matters more
            }
        }
        throw;
    }
    return out;
}

ModifyOutcome modify_qp(std::uint32_t qpn, const qp::ParsedModify& m, bool dry_run)
{
    const Json result = modify_call(qpn, m.request, dry_run);
    ModifyOutcome out;
    out.qpn = qpn;
    out.from = static_cast<ibv_qp_state>(result.value("from_state", 0));
    out.to = m.request.state;
    out.mask = result.value("mask", 0u);
    out.sent = result.value("sent", Json::object());
    out.checks = result.value("checks", std::vector<std::string>{});
    out.notes = m.notes;
    out.dry_run = dry_run;
    out.refused_errno = result.value("errno", 0);
    if (result.contains("after"))
        out.after = report::build_qp_report(result.at("after"));
    return out;
}

std::optional<report::QpReport> query_held(std::uint32_t qpn)
{
    try {
        return report::build_qp_report(holder_call("query", Json{{"qpn", qpn}}));
    } catch (const UsageError&) {  // not held by this holder
        return std::nullopt;
    } catch (const TimeoutError&) {  // a holder that is stopped or hung: not "not held"
        throw;
    } catch (const net::Interrupted&) {
        throw;
    } catch (const OperationError&) {  // no holder
        return std::nullopt;
    }
}

std::vector<report::QpReport> list_held()
{
    std::vector<report::QpReport> out;
    try {
        const Json result = holder_call("list", Json::object());
        for (const Json& q : result.at("qps"))
            out.push_back(report::build_qp_report(q));
    } catch (const OperationError&) {  // no holder: nothing held
    }
    return out;
}

report::QpReport query_xrc(std::uint32_t qpn, const std::string& device, const std::string& xrcd)
{
    const ClientOptions start{true, std::chrono::seconds(600)};
    return report::build_qp_report(
        holder_call("query", Json{{"qpn", qpn}, {"device", device}, {"xrcd", xrcd}}, start));
}

PostOutcome post_qp(const PostSpec& spec)
{
    const qp::PostRequest& r = spec.request;
    PostOutcome out;
    out.qpn = spec.qpn;
    out.count = r.count;
    if (r.recv) {
        // Receives: posted, nothing to wait for.
        const Json result = holder_call("post", Json{{"qpn", spec.qpn}, {"recv", true}, {"count", r.count}});
        out.operation = "recv";
        out.size = result.value("size", 0u);
        if (result.contains("srq"))
            out.srq = SrqCounts{result["srq"].value("id", 0u), result["srq"].value("posted", std::uint64_t{0}),
                                result["srq"].value("consumed", std::uint64_t{0})};
        out.after = query_held(spec.qpn);
        return out;
    }
    out.operation = std::string(qp::post_op_name(r.op));
    out.size = r.size;
    out.wait = spec.wait;
    if (out.wait.count() == 0) {
        // Long enough for the QP to give up by itself: its derived retry wait
        // plus a margin, at least 5 s, at most 10 min.
        const auto held = query_held(spec.qpn);
        double ms = 5000;
        if (held && held->retry_exceeded_wait_us)
            ms = std::max(ms, *held->retry_exceeded_wait_us / 1000.0 * 1.5 + 2000);
        out.wait = std::chrono::milliseconds(static_cast<long>(std::min(ms, 600000.0)));
    }
    Json req{{"qpn", spec.qpn},
             {"operation", out.operation},
             {"size", r.size},
             {"timeout_ms", static_cast<std::uint64_t>(out.wait.count())}};
    if (r.count > 1)
        req["count"] = r.count;
    if (r.raddr && r.rkey) {
        req["raddr"] = *r.raddr;
        req["rkey"] = *r.rkey;
    }
    if (qp::is_atomic(r.op)) {
        req["compare_add"] = r.compare_add;
        req["swap"] = r.swap;
    }
    Json result;
    try {
        result = holder_call("post", req);
    } catch (const InterruptedAfterRequest& e) {
        // The work request is the QP's now: the holder keeps waiting for its
        // completion, within the bound it was given, and keeps the QP.
        throw InterruptedAfterRequest(fmt::format("{} (it had the request: it posts the {} on QP {:#x}, waits at most "
                                                  "{} ms for its completion and keeps the QP; 'qpscope qp query {:#x}' "
                                                  "shows its state)",
                                                  e.what(), out.operation, spec.qpn, out.wait.count(), spec.qpn),
                                      e.signal);
    }
    out.waited_ms = result.value("waited_ms", 0.0);
    out.timed_out = result.value("timed_out", false);
    if (result.contains("completion"))
        out.completion = report::build_completion(result.at("completion"));
    if (result.contains("peer_completion"))
        out.peer_completion = report::build_completion(result.at("peer_completion"));
    if (result.contains("completed")) {
        out.completed = result.at("completed").get<std::uint32_t>();
        out.succeeded = result.value("succeeded", 0u);
    }
    if (result.contains("peer_completions"))
        out.peer_completions = result.at("peer_completions").get<std::uint32_t>();
    if (result.contains("rnr"))
        out.rnr = result.at("rnr").get<std::string>();
    if (qp::is_atomic(r.op)) {
        AtomicOutcome a;
        a.remote_addr = result.value("remote_addr", std::uint64_t{0});
        a.rkey = result.value("rkey", 0u);
        if (r.op == qp::PostOp::fadd) {
            a.add = r.compare_add;
        } else {
            a.compare = r.compare_add;
            a.swap = r.swap;
        }
        if (result.contains("fetched")) {
            a.fetched = result.at("fetched").get<std::uint64_t>();
            if (r.op == qp::PostOp::cas)  // the NIC swaps exactly when the original equals compare
                a.swapped = *a.fetched == r.compare_add;
        }
        out.atomic = a;
    }
    out.after = query_held(spec.qpn);
    return out;
}

DestroyOutcome destroy_qps(std::optional<std::uint32_t> qpn)
{
    Json req = qpn ? Json{{"qpn", *qpn}} : Json{{"all", true}};
    const Json result = holder_call("destroy", req);
    DestroyOutcome out;
    out.destroyed = result.value("destroyed", std::vector<std::uint32_t>{});
    out.holder_exits = result.value("holder_exits", false);
    return out;
}

}  // namespace qps::ops
