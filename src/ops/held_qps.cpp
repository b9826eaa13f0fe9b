#include "src/ops/held_qps.hpp"
#include "src/ops/held_objects.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <unistd.h>
#include <vector>

#include "src/decode/async_event.hpp"
#include "src/decode/device.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/qp/attributes.hpp"
#include "src/qp/validate.hpp"
#include "src/report/ports_watch.hpp"
#include "src/verbs/async_events.hpp"
#include "src/verbs/create_qp.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/handles.hpp"
#include "src/verbs/objects.hpp"

namespace qps::ops {

namespace {

// Every attribute ibv_query_qp can return: the library refuses (EOPNOTSUPP)
// masks with bits from IBV_QP_RATE_LIMIT up.
constexpr int all_attributes = IBV_QP_RATE_LIMIT - 1;



std::uint32_t qpn_of(const Json& req)
{
    if (!req.contains("qpn") || !req["qpn"].is_number_unsigned())
        throw UsageError("request has no QPN");
    return req["qpn"].get<std::uint32_t>();
}

}  // namespace

HeldQps::HeldQps() = default;
HeldQps::~HeldQps() = default;

void HeldQps::release()
{
    qps_.clear();      // QPs, MRs, CQs first
    srqs_.clear();     // then the SRQs they used
    xrcds_.clear();    // then the XRC domains
    devices_.clear();  // then PDs and contexts
}

void HeldQps::close_if_empty()
{
    if (empty()) {
        devices_.clear();
        none_left_ = true;
    }
}

HeldXrcd& HeldQps::open_xrcd(HeldDevice& dev, const std::string& path)
{
    if (!dev.xrc)
        throw OperationError(decode::no_xrc_text(dev.name));
    const std::string key = dev.name + '\n' + path;
    if (auto it = xrcds_.find(key); it != xrcds_.end())
        return *it->second;
    auto x = std::make_unique<HeldXrcd>();
    x->device = &dev;
    x->path = path;
    x->file = util::Fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (x->file.get() < 0)
        throw SystemError(fmt::format("open({})", path), errno, "the XRC domain's file: a path this user may create "
                                                                "or open read-write");
    x->xrcd = verbs::open_xrcd(dev.ctx.get(), x->file.get());
    if (!x->xrcd)
        throw SystemError(fmt::format("ibv_open_xrcd({}, {})", dev.name, path), errno);
    auto& ref = *x;
    xrcds_[key] = std::move(x);
    return ref;
}

Json HeldQps::xrcd_open(const Json& req)
{
    HeldDevice& dev = open_device(req.value("device", std::string()));
    HeldXrcd& x = open_xrcd(dev, req.value("path", std::string()));
    Json qps = Json::array(), srqs = Json::array();
    for (const auto& [qpn, q] : qps_)
        if (q->xrcd == &x)
            qps.push_back(qpn);
    for (const auto& [id, sq] : srqs_)
        if (sq->xrcd == &x)
            srqs.push_back(id);
    return Json{{"device", dev.name}, {"path", x.path}, {"qps", qps}, {"srqs", srqs}};
}

HeldDevice& HeldQps::open_device(const std::string& name)
{
    // Look up by the resolved name: "" (the first device) and its name are
    // one device, opened once. Opening it again and replacing the entry
    // would close the context the earlier QPs live on.
    const std::string resolved = verbs::resolve_device(name).name;
    if (auto it = devices_.find(resolved); it != devices_.end())
        return *it->second;
    verbs::OpenDevice opened = verbs::open_device(resolved);
    auto dev = std::make_unique<HeldDevice>();
    dev->name = opened.name;
    dev->ctx = std::move(opened.ctx);
    dev->pd = verbs::alloc_pd(dev->ctx.get(), dev->name);
    verbs::make_events_nonblocking(dev->ctx.get());  // take_events reads what waits, never blocks
    ibv_device_attr da{};
    if (int rc = ibv_query_device(dev->ctx.get(), &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", dev->name), rc);
    dev->atomic_cap = da.atomic_cap;
    dev->xrc = decode::has_xrc(da.device_cap_flags);
    auto& ref = *dev;
    devices_[dev->name] = std::move(dev);
    return ref;
}

std::vector<int> HeldQps::event_fds() const
{
    std::vector<int> fds;
    for (const auto& [name, dev] : devices_)
        fds.push_back(dev->ctx->async_fd);
    return fds;
}

void HeldQps::take_events()
{
    const auto now = std::chrono::system_clock::now();
    for (const auto& [name, dev] : devices_) {
        const verbs::AsyncRead got = verbs::read_async_events(dev->ctx.get());
        for (const verbs::AsyncEvent& e : got.events) {
            const HeldEvent held{e.type, now};
            if (e.srq)
                for (auto& [id, s] : srqs_)
                    if (s->srq.get() == e.srq)
                        s->events.push_back(held);
            if (e.qp)
                for (auto& [qpn, q] : qps_)
                    if (q->qp.get() == e.qp)
                        q->events.push_back(held);
        }
    }
}

Json completion_json(const Completion& c)
{
    return Json{{"status", c.status},
                {"vendor_err", c.vendor_err},
                {"opcode", c.opcode},
                {"byte_len", c.byte_len},
                {"qp_num", c.qp_num}};
}

Json events_json(const std::vector<HeldEvent>& events)
{
    Json out = Json::array();
    for (const HeldEvent& e : events) {
        const auto* entry = decode::find_entry(decode::async_event_table, e.type);
        out.push_back(Json{{"event", entry ? std::string(entry->name) : fmt::format("event {}", e.type)},
                           {"severity", entry ? std::string(decode::severity_name(entry->severity)) : "warning"},
                           {"meaning", entry ? std::string(entry->meaning) : "an event this qpscope does not know"},
                           {"at", report::rfc3339_utc(e.at)}});
    }
    return out;
}

HeldQp& HeldQps::find(const Json& req)
{
    const std::uint32_t qpn = qpn_of(req);
    auto it = qps_.find(qpn);
    if (it == qps_.end()) {
        std::vector<std::string> held;
        for (const auto& [n, q] : qps_)
            held.push_back(fmt::format("{:#x}", n));
        throw UsageError(fmt::format("QP {:#x} ({}) is not held by this user's holder; held QPs: {}", qpn, qpn,
                                     held.empty() ? "none" : fmt::format("{}", fmt::join(held, ", "))));
    }
    return *it->second;
}

Json HeldQps::describe(const HeldQp& q) const
{
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(q.qp.get(), &attr, all_attributes, &init); rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", q.qp->qp_num), rc);
    Json j{{"qpn", q.qp->qp_num},
           {"device", q.device->name},
           {"port", q.port},
           {"attr", qp::qp_attr_to_json(attr, init)},
           {"granted", Json{{"max_send_wr", q.granted.max_send_wr},
                            {"max_recv_wr", q.granted.max_recv_wr},
                            {"max_send_sge", q.granted.max_send_sge},
                            {"max_recv_sge", q.granted.max_recv_sge},
                            {"max_inline_data", q.granted.max_inline_data}}},
           {"buffer", Json{{"addr", reinterpret_cast<std::uintptr_t>(q.buffer.get())},
                           {"size", q.buffer_size},
                           {"lkey", q.mr->lkey},
                           {"rkey", q.mr->rkey}}},
           {"posted", q.posted}};
    if (q.srq)
        j["srq"] = q.srq->id;
    if (q.xrcd)
        j["xrcd"] = q.xrcd->path;
    if (!q.events.empty())
        j["events"] = events_json(q.events);
    if (q.last_error)
        j["last_error"] = completion_json(*q.last_error);
    // What the attributes point at, so the client can show it.
    ibv_context* ctx = q.device->ctx.get();
    const std::uint8_t port = attr.port_num ? attr.port_num : q.port;
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, port, &pa) == 0)
        j["port_state"] = pa.state;
    __be16 pkey = 0;
    if (ibv_query_pkey(ctx, port, attr.pkey_index, &pkey) == 0)
        j["pkey"] = be16toh(pkey);
    ibv_gid_entry gid{};
    if (attr.ah_attr.is_global &&
        ibv_query_gid_ex(ctx, port, attr.ah_attr.grh.sgid_index, &gid, 0) == 0) {
        decode::GidBytes bytes{};
        std::memcpy(bytes.data(), gid.gid.raw, bytes.size());
        j["sgid"] = Json{{"gid", decode::format_gid(bytes)}, {"type", gid.gid_type}};
    }
    return j;
}

Json HeldQps::create(const Json& req)
{
    const verbs::CreateRequest c = verbs::create_request_from_json(req);
    HeldSrq* srq = nullptr;
    if (c.srq) {
        srq = &find_srq(*c.srq);
        if (!c.device.empty() && verbs::resolve_device(c.device).name != srq->device->name)
            throw UsageError(fmt::format("{} {} is on {}, the QP would be on {}: a QP and its SRQ share a device",
                                         given(Given::srq), *c.srq, srq->device->name, c.device));
    }
    HeldDevice& dev = srq ? *srq->device : open_device(c.device);
    if (decode::is_xrc(c.type) && !dev.xrc)  // before anything is made
        throw OperationError(decode::no_xrc_text(dev.name));
    verbs::check_create_against_device(dev.ctx.get(), dev.name, c);
    HeldXrcd* xrcd = c.type == IBV_QPT_XRC_RECV ? &open_xrcd(dev, c.xrcd) : nullptr;

    auto q = std::make_unique<HeldQp>();
    q->device = &dev;
    q->port = c.port;
    q->cq = verbs::create_cq(dev.ctx.get(), c.cq_depth, dev.name, "a smaller CQ depth (qp create --cq-depth)");
    q->buffer_size = c.buffer_size;
    q->buffer = verbs::page_buffer(c.buffer_size);
    if (!q->buffer)
        throw SystemError(fmt::format("aligned_alloc({} bytes)", c.buffer_size), ENOMEM);
    // Remote atomics too where the device does them (`qp post --op fadd|cas`
    // aims at the peer's buffer); a device without them may refuse the flag.
    const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                       (dev.atomic_cap != IBV_ATOMIC_NONE ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    q->mr = verbs::reg_mr(dev.pd.get(), q->buffer.get(), c.buffer_size, access);
    verbs::QpSpec spec = verbs::qp_spec(c, q->cq.get());
    spec.srq = srq ? srq->srq.get() : nullptr;
    spec.xrcd = xrcd ? xrcd->xrcd.get() : nullptr;
    q->srq = srq;
    q->xrcd = xrcd;
    q->qp = verbs::create_qp(dev.pd.get(), spec, &q->granted);
    if (!q->qp && decode::is_xrc(c.type))  // the cap search below knows the PD's QPs
        throw SystemError(fmt::format("ibv_create_qp_ex({}, {})", dev.name, decode::qp_type_word(c.type)), errno,
                          "'qpscope qp create' with smaller depths");
    if (!q->qp)
        explain_create_failure(dev.pd.get(), q->cq.get(), dev.name, c, errno);  // throws
    const std::uint32_t qpn = q->qp->qp_num;
    qps_[qpn] = std::move(q);
    return describe(*qps_[qpn]);
}

Json HeldQps::destroy(const Json& req)
{
    Json destroyed = Json::array();
    if (req.value("all", false)) {
        for (auto& [qpn, q] : qps_)
            destroyed.push_back(qpn);
        qps_.clear();
        srqs_.clear();   // "all": the SRQs too
        xrcds_.clear();  // and the XRC domains
    } else {
        HeldQp& q = find(req);
        const std::uint32_t qpn = q.qp->qp_num;
        // Destroy explicitly so a failure is reported, not only logged.
        if (int rc = ibv_destroy_qp(q.qp.get()); rc != 0)
            throw SystemError(fmt::format("ibv_destroy_qp({:#x})", qpn), rc);
        q.qp.release();  // destroyed above
        qps_.erase(qpn);
        destroyed.push_back(qpn);
    }
    close_if_empty();
    return Json{{"destroyed", destroyed}, {"remaining", qps_.size()}, {"holder_exits", none_left_}};
}

Json HeldQps::list(const Json&)
{
    Json list = Json::array();
    for (const auto& [qpn, q] : qps_)
        list.push_back(describe(*q));
    return Json{{"qps", list}, {"pid", ::getpid()}};
}

Json HeldQps::query(const Json& req) { return req.contains("xrcd") ? query_xrc(req) : describe(find(req)); }

Json HeldQps::query_xrc(const Json& req)
{
    HeldDevice& dev = open_device(req.value("device", std::string()));
    HeldXrcd& x = open_xrcd(dev, req.value("xrcd", std::string()));
    const std::uint32_t qpn = qpn_of(req);
    const verbs::QueuePair qp = verbs::open_xrc_qp(dev.ctx.get(), x.xrcd.get(), qpn);
    if (!qp)
        throw SystemError(fmt::format("ibv_open_qp({}, QP {:#x} in the XRC domain of {})", dev.name, qpn, x.path),
                          errno, "the QP must be an xrc-recv QP of that domain (the file its creator opened)");
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(qp.get(), &attr, all_attributes, &init); rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", qpn), rc);
    // Opened, not held: no buffer, no caps of ours.
    return Json{{"qpn", qpn},
                {"device", dev.name},
                {"port", attr.port_num ? attr.port_num : 1},
                {"attr", qp::qp_attr_to_json(attr, init)},
                {"granted", Json{{"max_send_wr", 0}, {"max_recv_wr", 0}, {"max_send_sge", 0}, {"max_recv_sge", 0},
                                 {"max_inline_data", 0}}},
                {"buffer", Json{{"addr", 0}, {"size", 0}, {"lkey", 0}, {"rkey", 0}}},
                {"posted", 0},
                {"xrcd", x.path},
                {"opened", true}};
}

Json HeldQps::modify(const Json& req)
{
    HeldQp& q = find(req);
    const qp::ModifyRequest m = qp::modify_request_from_json(req.value("attributes", Json::object()));
    ibv_qp_attr current{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(q.qp.get(), &current, all_attributes, &init); rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", q.qp->qp_num), rc);

    const qp::Validation v = qp::validate_modify(q.device->ctx.get(), current, init.qp_type, m);
    ibv_qp_attr attr{};
    int mask = 0;
    qp::to_verbs(m, current, attr, mask);
    Json result{{"qpn", q.qp->qp_num},
                {"from_state", current.qp_state},
                {"mask", mask},
                {"sent", qp::qp_attr_to_json(attr, init)},
                {"checks", v.passed}};
    if (!v.problems.empty())
        throw UsageError(v.problems.front());
    if (req.value("dry_run", false)) {
        result["dry_run"] = true;
        return result;
    }
    if (int rc = ibv_modify_qp(q.qp.get(), &attr, mask); rc != 0) {
        result["errno"] = rc;
        result["refused"] = true;
        return result;
    }
    result["after"] = describe(q);
    return result;
}

}  // namespace qps::ops
