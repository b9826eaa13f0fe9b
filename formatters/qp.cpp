#include "formatters/qp.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/host/pid_namespace.hpp"

namespace qps::formatters {

namespace {

using u64 = std::uint64_t;

Value json_value(const nlohmann::ordered_json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    if (j.is_boolean())
        return j.get<bool>();
    if (j.is_number_unsigned())
        return j.get<u64>();
    if (j.is_number_integer())
        return j.get<std::int64_t>();
    if (j.is_number_float())
        return j.get<double>();
    return Value{};
}

Value hex24(std::uint32_t v) { return decode::hex_number(v); }

// Ports are numbered from 1; 0 is "no port yet" (a QP before RESET→INIT, an
// address vector not set): null in JSON (in a table row too), "-" in text.
Value port_or_none(std::uint32_t port) { return port == 0 ? Value{nullptr} : Value{u64{port}}; }
Value port_or_none(const std::optional<std::uint32_t>& port) { return port ? Value{u64{*port}} : Value{nullptr}; }
Value number_or_none(const std::optional<std::uint32_t>& v) { return v ? Value{u64{*v}} : Value{}; }
Value text_or_none(const std::string& s) { return s.empty() ? Value{} : Value{s}; }

// A wait that may be infinite: {"raw": code-independent us, "name": "67.109 ms"} or "infinite".
Value wait_us(const std::optional<double>& us)
{
    if (!us)
        return decode::Decoded::named(-1, "infinite (never gives up)");
    return decode::Decoded::quantity(static_cast<std::int64_t>(std::llround(*us)), decode::human_duration_us(*us),
                                     "us", *us);
}

void render_caps(const report::Caps& c, std::string_view key, std::string_view heading, Printer& p)
{
    ObjectScope scope(p, key, heading);
    p.field("max_send_wr", "max send WR", u64{c.max_send_wr});
    p.field("max_recv_wr", "max recv WR", u64{c.max_recv_wr});
    p.field("max_send_sge", "max send SGE", u64{c.max_send_sge});
    p.field("max_recv_sge", "max recv SGE", u64{c.max_recv_sge});
    p.field("max_inline_data", "max inline data", u64{c.max_inline_data});
}

void render_completion(const report::CompletionReport& c, Printer& p)
{
    p.field("status", "status", c.status);
    p.field("meaning", "meaning", c.meaning);
    p.field("opcode", "opcode", c.opcode);
    p.field("vendor_err", "vendor error", decode::hex_number(c.vendor_err));
    p.field("byte_len", "bytes", u64{c.byte_len});
}

void render_address(const report::AddressReport& a, Printer& p)
{
    p.field("port", "port", port_or_none(a.port));
    p.field("dlid", "DLID", u64{a.dlid});
    p.field("sl", "SL", u64{a.sl});
    p.field("src_path_bits", "source path bits", u64{a.src_path_bits});
    p.field("static_rate", "static rate", a.static_rate);
    p.field("is_global", "GRH", a.global);
    if (!a.global)
        return;
    p.field("dgid", "DGID", a.dgid);
    p.field("sgid_index", "SGID index", u64{a.sgid_index});
    if (!a.sgid.empty())
        p.field("sgid", "SGID", a.sgid);
    if (a.sgid_type)
        p.field("sgid_type", "SGID type", *a.sgid_type);
    p.field("flow_label", "flow label", decode::hex_number(a.flow_label));
    p.field("hop_limit", "hop limit", u64{a.hop_limit});
    p.field("traffic_class", "traffic class", a.traffic_class);
}

void render_diagnosis(const report::Diagnosis& d, Printer& p)
{
    ObjectScope scope(p, "diagnosis", "diagnosis");
    p.field("summary", "what happened", d.summary);
    p.field("port_state", "port state", d.port_state);
    {
        ListScope checks(p, "checks", "check");
        for (const auto& c : d.checks)
            p.item(c);
    }
    Table t{{{"name", "COUNTER"}, {"value", "VALUE"}, {"meaning", "MEANING"}}, {}, true};
    for (const auto& c : d.error_counters)
        t.rows.push_back({c.name, u64{c.value}, std::string(c.meaning)});
    p.table("error_counters", "port error counters", t);
}

void render_qp_fields(const report::QpReport& q, Printer& p)
{
    p.field("qpn", "QPN", hex24(q.qpn));
    p.field("device", "device", q.device);
    p.field("port", "port", u64{q.port});
    p.field("type", "type", q.type);
    p.field("state", "state", q.state);
    p.field("path_mtu", "path MTU", q.path_mtu);
    p.field("path_mig_state", "migration state", q.mig_state);
    p.field("qkey", "Q_Key", decode::hex_number(q.qkey));
    p.field("rq_psn", "RQ PSN", u64{q.rq_psn});
    p.field("sq_psn", "SQ PSN", u64{q.sq_psn});
    p.field("dest_qpn", "destination QPN", hex24(q.dest_qpn));
    p.field("access", "access", q.access);
    p.field("pkey_index", "P_Key index", u64{q.pkey_index});
    if (q.pkey)
        p.field("pkey", "P_Key", decode::hex_number(*q.pkey, 4));
    p.field("max_rd_atomic", "max RD atomic (initiator)", u64{q.max_rd_atomic});
    p.field("max_dest_rd_atomic", "max RD atomic (target)", u64{q.max_dest_rd_atomic});
    p.field("min_rnr_timer", "min RNR timer", q.min_rnr_timer);
    p.field("timeout", "local ACK timeout", q.timeout);
    p.field("retry_cnt", "retry count", q.retry_cnt);
    p.field("rnr_retry", "RNR retry", q.rnr_retry);
    p.field("retry_exceeded_wait", "wait before retry-exceeded", wait_us(q.retry_exceeded_wait_us));
    p.field("rnr_exceeded_wait", "wait before RNR-retry-exceeded",
            wait_us(q.rnr_exceeded_wait_ms ? std::optional<double>(*q.rnr_exceeded_wait_ms * 1000) : std::nullopt));
    p.field("sq_sig_all", "signal all sends", q.sq_sig_all);
    p.field("sq_draining", "SQ draining", q.sq_draining);
    p.field("rate_limit_kbps", "rate limit (kb/s)", u64{q.rate_limit_kbps});
    p.field("srq", "SRQ (receives from)", q.srq ? Value{u64{*q.srq}} : Value{nullptr});
    if (q.xrcd) {
        p.field("xrcd", "XRC domain (file)", *q.xrcd);
        p.field("opened", "opened by number in the domain (ibv_open_qp)", q.opened);
    }
    render_caps(q.caps, "caps", "caps", p);
    {
        ObjectScope av(p, "address_vector", "address vector");
        render_address(q.av, p);
    }
    {
        ObjectScope alt(p, "alternate_path", "alternate path");
        p.field("pkey_index", "P_Key index", u64{q.alt_pkey_index});
        p.field("timeout", "local ACK timeout", q.alt_timeout);
        render_address(q.alt_av, p);
    }
    {
        ObjectScope buf(p, "buffer", "test buffer (qp post)");
        p.field("addr", "address", decode::hex_number(q.buffer_addr));
        p.field("size_bytes", "size (bytes)", u64{q.buffer_size});
        p.field("rkey", "rkey", decode::hex_number(q.buffer_rkey));
    }
    if (q.last_error) {
        ObjectScope e(p, "last_error", "last completion error");
        render_completion(*q.last_error, p);
    }
    render_held_events(q.events, p);
    if (q.diagnosis)
        render_diagnosis(*q.diagnosis, p);
}

}  // namespace

void render_held_events(const std::vector<report::HeldEventReport>& events, Printer& p)
{
    ListScope list(p, "events", events.empty() ? "asynchronous events: none" : "asynchronous events");
    for (const auto& e : events) {
        ObjectScope one(p, "", fmt::format("{} {} ({})", e.at, e.event, e.severity));
        p.field("event", "event", e.event);
        p.field("severity", "severity", e.severity);
        p.field("meaning", "meaning", e.meaning);
        p.field("at", "read at", e.at);
    }
}

void render_qp(const report::QpReport& q, Printer& p)
{
    ObjectScope scope(p, "qp", fmt::format("QP {:#x} ({}) on {} port {}", q.qpn, q.qpn, q.device, q.port));
    p.field("held", "held by this user's holder", true);
    render_qp_fields(q, p);
}

void render_create(const ops::CreateOutcome& o, Printer& p)
{
    {
        ListScope qps(p, "qps");
        for (const auto& q : o.qps) {
            ObjectScope scope(p, "", fmt::format("QP {:#x} ({}) created on {} port {}", q.qpn, q.qpn, q.device,
                                                 q.port));
            p.field("qpn", "QPN", hex24(q.qpn));
            p.field("type", "type", q.type);
            p.field("state", "state", q.state);
            render_caps(q.caps, "granted", "caps granted", p);
        }
    }
    if (!o.steps.empty()) {
        ListScope steps(p, "steps", "transitions");
        for (const auto& s : o.steps) {
            ObjectScope step(p, "", fmt::format("QP {:#x}: {} → {}", s.qpn, *decode::qp_state(s.from).name,
                                                *decode::qp_state(s.to).name));
            p.field("qpn", "QPN", hex24(s.qpn));
            p.field("from", "from", decode::qp_state(s.from));
            p.field("to", "to", decode::qp_state(s.to));
            p.field("mask", "attributes sent", decode::qp_attr_mask(s.mask));
            if (!s.defaulted.empty())
                p.field("defaults", "defaults used", fmt::format("{}", fmt::join(s.defaulted, ", ")));
        }
    }
    if (!o.notes.empty()) {
        ListScope notes(p, "notes", "notes");
        for (const auto& n : o.notes)
            p.item(n);
    }
}

void render_modify(const ops::ModifyOutcome& o, Printer& p)
{
    const std::string to = o.to ? *decode::qp_state(*o.to).name : *decode::qp_state(o.from).name;
    ObjectScope scope(p, "modify",
                      fmt::format("QP {:#x}: {} → {}{}", o.qpn, *decode::qp_state(o.from).name, to,
                                  o.dry_run ? " (dry run: nothing sent)"
                                            : o.refused_errno ? " REFUSED by the kernel" : ""));
    p.field("qpn", "QPN", hex24(o.qpn));
    p.field("from", "from", decode::qp_state(o.from));
    if (o.to)
        p.field("to", "to", decode::qp_state(*o.to));
    p.field("dry_run", "dry run", o.dry_run);
    p.field("mask", "attribute mask", decode::qp_attr_mask(o.mask));
    if (o.refused_errno) {
        p.field("errno", "errno", decode::Decoded::named(o.refused_errno, errno_name(o.refused_errno)));
        p.field("error", "error", std::string(std::strerror(o.refused_errno)));
    }
    {
        ObjectScope sent(p, "sent", o.dry_run ? "attributes that would be sent" : "attributes sent");
        for (const auto& [key, value] : o.sent.items()) {
            if (key == "init" || key == "cap" || key == "alt_ah_attr")
                continue;
            if (value.is_object()) {
                for (const auto& [k2, v2] : value.items())
                    p.field(key + "." + k2, key + "." + k2, json_value(v2));
            } else {
                p.field(key, key, json_value(value));
            }
        }
    }
    {
        ListScope checks(p, "checks_passed", "checks passed");
        for (const auto& c : o.checks)
            p.item(c);
    }
    if (!o.notes.empty()) {
        ListScope notes(p, "notes", "notes");
        for (const auto& n : o.notes)
            p.item(n);
    }
    if (o.after) {
        ObjectScope after(p, "qp", "QP now");
        render_qp_fields(*o.after, p);
    }
}

void render_post(const ops::PostOutcome& o, Printer& p)
{
    const std::string what = o.count > 1 ? fmt::format("{} x {}", o.count, o.operation) : o.operation;
    ObjectScope scope(p, "post", fmt::format("QP {:#x}: {} of {} bytes", o.qpn, what, o.size));
    p.field("qpn", "QPN", hex24(o.qpn));
    p.field("op", "operation", o.operation);
    p.field("size_bytes", "size (bytes)", u64{o.size});
    p.field("count", "work requests", u64{o.count});
    if (o.srq) {
        ObjectScope srq(p, "srq", fmt::format("into SRQ {}", o.srq->id));
        p.field("id", "SRQ", u64{o.srq->id});
        p.field("posted", "receives posted to it (all told)", o.srq->posted);
        p.field("consumed", "taken by messages", o.srq->consumed);
    }
    if (o.operation == "recv") {
        if (o.after)
            p.field("state_after", "QP state", o.after->state);
        return;
    }
    p.field("wait_bound_ms", "wait bound (ms)", u64(o.wait.count()));
    p.field("waited_ms", "waited (ms)", o.waited_ms);
    p.field("timed_out", "timed out", o.timed_out);
    if (o.completed) {
        p.field("completed", "completions", u64{*o.completed});
        p.field("succeeded", "of them SUCCESS", u64{o.succeeded.value_or(0)});
    }
    if (o.peer_completions)
        p.field("peer_completions", "peer's receive completions", u64{*o.peer_completions});
    if (o.completion) {
        ObjectScope c(p, "completion", "completion");
        render_completion(*o.completion, p);
    }
    if (o.peer_completion) {
        ObjectScope c(p, "peer_completion", "peer's receive completion");
        render_completion(*o.peer_completion, p);
    }
    if (o.atomic) {
        const ops::AtomicOutcome& a = *o.atomic;
        ObjectScope atomic(p, "atomic", "atomic");
        p.field("remote_addr", "remote address", decode::hex_number(a.remote_addr));
        p.field("rkey", "rkey", decode::hex_number(a.rkey));
        if (a.add)
            p.field("add", "add", *a.add);
        if (a.compare)
            p.field("compare", "compare", *a.compare);
        if (a.swap)
            p.field("swap", "swap", *a.swap);
        if (a.fetched)
            p.field("fetched", "fetched (the original value)", *a.fetched);
        if (a.swapped)
            p.field("swapped", "swapped", *a.swapped);
    }
    if (o.rnr)
        p.field("rnr", "why (receiver not ready)", *o.rnr);
    if (o.after) {
        p.field("state_after", "QP state after", o.after->state);
        if (o.after->diagnosis)
            render_diagnosis(*o.after->diagnosis, p);
    }
}

void render_destroy(const ops::DestroyOutcome& o, Printer& p)
{
    {
        ListScope list(p, "destroyed", "destroyed");
        for (auto qpn : o.destroyed)
            p.field("", "QP", hex24(qpn));
    }
    p.field("holder_exits", "holder exits", o.holder_exits);
}

void render_kernel_qp(const report::KernelQpReport& q, Printer& p, const health::QpVerdict* verdict)
{
    p.field("qpn", "QPN", hex24(q.qpn));
    p.field("device", "device", q.device);
    p.field("port", "port", port_or_none(q.port));
    p.field("type", "type", q.type);
    p.field("state", "state", q.state);
    if (q.dest_qpn)
        p.field("dest_qpn", "destination QPN", hex24(*q.dest_qpn));
    if (q.sq_psn)
        p.field("sq_psn", "SQ PSN", u64{*q.sq_psn});
    if (q.rq_psn)
        p.field("rq_psn", "RQ PSN", u64{*q.rq_psn});
    if (q.mig_state)
        p.field("path_mig_state", "migration state", *q.mig_state);
    if (q.pdn)
        p.field("pdn", "PD", u64{*q.pdn});
    if (q.pid)
        p.field("pid", "pid", u64{*q.pid});
    p.field("comm", "command", OutsideBytes{q.comm});
    if (q.consumer) {
        const report::QpConsumer& c = *q.consumer;
        ObjectScope scope(p, "consumer", "its rdma_cm ID's consumer");
        p.field("owner", "owner", OutsideBytes{c.owner});
        p.field("local", "local address", text_or_none(c.local));
        p.field("remote", "remote address", text_or_none(c.remote));
        p.field("cm_state", "rdma_cm state", c.cm_state);
        p.field("serves", "serves", text_or_none(c.serves));
        p.field("serves_state", "its state", text_or_none(c.serves_state));
        p.field("serves_target", "its target", text_or_none(c.serves_target));
    }
    if (!q.driver.empty()) {
        ObjectScope d(p, "driver", "driver details");
        for (const auto& [k, v] : q.driver)
            p.field(k, k, v);
    }
    if (verdict) {
        p.field("stuck", "stuck", verdict->stuck);
        p.begin_list("notes", verdict->notes.empty() ? "" : "notes");
        for (const auto& n : verdict->notes)
            p.item(n);
        p.end_list();
    }
}

void render_kernel_qp_view(const ops::KernelQpView& view, Printer& p)
{
    ObjectScope scope(p, "qp", fmt::format("QP {:#x} ({}) on {} — kernel view (not held by you: attributes beyond "
                                           "these need its owner)",
                                           view.qp.qpn, view.qp.qpn, view.qp.device));
    p.field("held", "held by this user's holder", false);
    render_kernel_qp(view.qp, p, view.verdict ? &*view.verdict : nullptr);
}

void render_kernel_qps(const ops::QpListing& listing, Printer& p)
{
    const auto& qps = listing.qps;
    const auto& notes = listing.notes;
    Table t{{{"device", "DEVICE"},
             {"port", "PORT"},
             {"qpn", "QPN"},
             {"type", "TYPE"},
             {"state", "STATE"},
             {"dest_qpn", "DEST QPN"},
             {"sq_psn", "SQ PSN"},
             {"rq_psn", "RQ PSN"},
             {"pid", "PID"},
             {"comm", "COMMAND"},
             {"held", "HELD"},
             {"consumer", "CONSUMER"},
             {"remote", "REMOTE"},
             {"serves", "SERVES"}},
            {}};
    // Each row made as it is printed, from the kernel's QP (a host may hold tens of thousands).
    t.row_count = qps.size();
    t.row_at = [&listing](std::size_t i, std::vector<Value>& row) {
        report::KernelQpReport q = listing.report(i);
        const auto& c = q.consumer;
        // What a kernel consumer's QP serves, with its state: "nvme0 (live)".
        Value serves = !c || c->serves.empty()
                                 ? Value{}
                                 : Value{c->serves_state.empty() ? c->serves
                                                                 : fmt::format("{} ({})", c->serves, c->serves_state)};
        // Moved in one by one (a braced list would copy each value, strings and all).
        row.reserve(14);
        row.emplace_back(std::move(q.device));
        row.push_back(port_or_none(q.port));
        row.push_back(hex24(q.qpn));
        row.emplace_back(std::move(q.type));
        row.emplace_back(std::move(q.state));
        row.push_back(q.dest_qpn ? hex24(*q.dest_qpn) : Value{});
        row.push_back(number_or_none(q.sq_psn));
        row.push_back(number_or_none(q.rq_psn));
        row.push_back(number_or_none(q.pid));
        row.emplace_back(OutsideBytes{std::move(q.comm)});
        row.emplace_back(q.held);
        row.push_back(c ? Value{OutsideBytes{c->owner}} : Value{});
        row.push_back(c && !c->remote.empty() ? Value{c->remote} : Value{});
        row.push_back(std::move(serves));
    };
    p.table("qps",
            notes.stalled_s ? fmt::format("{} QP(s) without progress in {:g} s, or in ERR/SQE", qps.size(),
                                          *notes.stalled_s)
                            : fmt::format("{} QP(s)", qps.size()),
            t);
    p.datum("pid_namespace", std::string(notes.nested_pid_ns ? "nested" : "host"));
    if (notes.nested_pid_ns)
        p.note(host::pid_namespace_note());
    if (notes.stalled_s) {
        p.datum("stalled_s", *notes.stalled_s);
        p.datum("interrupted", notes.interrupted);
        if (notes.interrupted)
            p.note(fmt::format("interrupted after {:.1f} s: what the readings so far show (exit 4)", *notes.stalled_s));
    }
    p.begin_list("verdicts", "");
    for (const auto& v : notes.verdicts) {
        const auto& q = v.qp;
        p.begin_object("", fmt::format("QP {:#x} on {}, {}{}", q.lqpn, q.dev_name,
                                       q.pid            ? fmt::format("pid {} ({})", *q.pid, q.comm)
                                       : q.comm.empty() ? std::string("no pid (outside this PID namespace, or exiting)")
                                                        : q.comm,
                                       v.stuck ? ": STUCK" : ""));
        p.datum("device", q.dev_name);
        p.datum("qpn", hex24(q.lqpn));
        p.datum("stuck", v.stuck);
        p.datum("error_state", v.error_state);
        p.datum("dest_missing", v.dest_missing);
        p.datum("no_progress", v.no_progress);
        p.begin_list("notes", "");
        for (const auto& n : v.notes)
            p.item(n);
        p.end_list();
        p.end_object();
    }
    p.end_list();
    if (notes.stalled_s) {
        p.begin_list("port_counters", notes.port_counters.empty() ? "" : "port error counters meanwhile");
        for (const auto& f : notes.port_counters) {
            p.begin_object("", "");
            p.datum("device", f.device);
            p.datum("port", f.port ? Value(u64{*f.port}) : Value(nullptr));
            p.datum("status", std::string(status_name(f.status)));
            p.field("summary", fmt::format("{} port {}", f.device, f.port.value_or(0)), f.summary);
            p.end_object();
        }
        p.end_list();
    }
    const auto any = [&](auto pred) { return std::any_of(notes.verdicts.begin(), notes.verdicts.end(), pred); };
    if (any([](const health::QpVerdict& v) { return v.error_state && v.qp.pid; }))
        p.note("The failed completion of a QP in ERR or SQE is known only to its owner: see its log for the status "
               "('qpscope doctor' shows the port counters around it).");
    if (any([](const health::QpVerdict& v) { return v.error_state && !v.qp.pid; }))
        p.note("A kernel consumer's QP in ERR or SQE: the consumer (CONSUMER) got the failed completion and recovers "
               "by itself or gives up; its dmesg lines say which ('dmesg | qpscope explain --log -'), and "
               "'qpscope doctor' names what it serves.");
    if (any([](const health::QpVerdict& v) { return v.stuck && v.dest_missing && v.qp.pid; }))
        p.note("The kernel does not end a QP whose peer is gone: its owner waits until a timeout of its own, if it "
               "has one. Stop the owner (kill PID) or restart its peer.");
    if (notes.dest_missing)
        p.note(fmt::format("{} connected QP(s) point at a destination QP that is not on this host (a remote peer, "
                           "or a local one that is gone): 'qpscope qp list --stalled 2' shows which made no "
                           "progress.",
                           notes.dest_missing));
}

}  // namespace qps::formatters
