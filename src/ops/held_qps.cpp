#include "src/ops/held_qps.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <thread>
#include <unistd.h>
#include <vector>

#include "src/decode/gid.hpp"
#include "src/error.hpp"
#include "src/qp/attributes.hpp"
#include "src/qp/validate.hpp"
#include "src/verbs/create_qp.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/handles.hpp"
#include "src/verbs/objects.hpp"

namespace qps::ops {

// One opened device. Members are declared parent-first: the PD is released
// before the context that owns it.
struct HeldDevice {
    std::string name;
    verbs::Context ctx;
    verbs::ProtectionDomain pd;
    int atomic_cap = IBV_ATOMIC_NONE;  // ibv_device_attr::atomic_cap: may its buffers be atomic targets
};

struct Completion {
    ibv_wc_status status;
    std::uint32_t vendor_err;
    ibv_wc_opcode opcode;
    std::uint32_t byte_len;
    std::uint32_t qp_num;
};

// One shared receive queue, on a device's PD; `id` is the holder's own
// number for it (a basic SRQ has no number of the device's).
struct HeldSrq {
    HeldDevice* device = nullptr;
    std::uint32_t id = 0;
    verbs::SharedReceiveQueue srq;
    ibv_srq_attr granted{};
    std::uint64_t posted = 0;  // receives posted to it
};

// One held QP with its own CQ and a registered buffer for `qp post`.
// Declaration order is destruction order reversed: QP, then MR, then the
// buffer, then the CQ.
struct HeldQp {
    HeldDevice* device = nullptr;
    std::uint8_t port = 1;
    verbs::CompletionQueue cq;
    verbs::PageBuffer buffer;
    std::size_t buffer_size = 0;
    verbs::MemoryRegion mr;
    verbs::QueuePair qp;
    HeldSrq* srq = nullptr;  // its receives come from this SRQ
    ibv_qp_cap granted{};  // what the device granted (verbs::create_qp writes it)
    std::optional<Completion> last_error;
    std::uint64_t posted = 0;
};

namespace {

// Every attribute ibv_query_qp can return: the library refuses (EOPNOTSUPP)
// masks with bits from IBV_QP_RATE_LIMIT up.
constexpr int all_attributes = IBV_QP_RATE_LIMIT - 1;

Json completion_json(const Completion& c)
{
    return Json{{"status", c.status},
                {"vendor_err", c.vendor_err},
                {"opcode", c.opcode},
                {"byte_len", c.byte_len},
                {"qp_num", c.qp_num}};
}

Completion completion_of(const ibv_wc& wc) { return {wc.status, wc.vendor_err, wc.opcode, wc.byte_len, wc.qp_num}; }

std::uint32_t qpn_of(const Json& req)
{
    if (!req.contains("qpn") || !req["qpn"].is_number_unsigned())
        throw UsageError("request has no QPN");
    return req["qpn"].get<std::uint32_t>();
}

// The receive a send needs on the peer QP, when this holder has the peer
// too: into its SRQ when it has one.
void post_peer_receive(HeldQp& peer)
{
    ibv_sge rsge{reinterpret_cast<std::uintptr_t>(peer.buffer.get()), static_cast<std::uint32_t>(peer.buffer_size),
                 peer.mr->lkey};
    ibv_recv_wr rwr{};
    rwr.wr_id = ++peer.posted;
    rwr.sg_list = &rsge;
    rwr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (peer.srq) {
        ++peer.srq->posted;
        if (int rc = ibv_post_srq_recv(peer.srq->srq.get(), &rwr, &bad); rc != 0)
            throw SystemError(fmt::format("ibv_post_srq_recv on SRQ {} of the peer QP {:#x}", peer.srq->id,
                                          peer.qp->qp_num),
                              rc);
        return;
    }
    if (int rc = ibv_post_recv(peer.qp.get(), &rwr, &bad); rc != 0)
        throw SystemError(fmt::format("ibv_post_recv on the peer QP {:#x}", peer.qp->qp_num), rc);
}

// Where a write, read or atomic aims: the buffer given in the request, else
// the peer's when this holder has it.
void aim_remote(std::uint64_t& remote_addr, std::uint32_t& rkey, std::string_view op, const Json& req, HeldQp* peer,
                std::uint32_t dest_qpn)
{
    if (req.contains("raddr") && req.contains("rkey")) {
        remote_addr = req["raddr"].get<std::uint64_t>();
        rkey = req["rkey"].get<std::uint32_t>();
    } else if (peer) {
        remote_addr = reinterpret_cast<std::uintptr_t>(peer->buffer.get());
        rkey = peer->mr->rkey;
    } else {
        throw UsageError(fmt::format("{} {}: the peer QP {:#x} is not held here; give {} and {}", given(Given::op), op,
                                     dest_qpn, given(Given::raddr), given(Given::rkey)));
    }
}

// The WR for `op`: a send first posts the peer's receive (when the peer is
// held here), a write, read or atomic aims at the remote buffer
// (aim_remote); an atomic carries its operands.
void prepare_operation(ibv_send_wr& wr, qp::PostOp op, const Json& req, HeldQp* peer, std::uint32_t dest_qpn)
{
    wr.opcode = qp::post_wr_opcode(op);
    const std::string_view name = qp::post_op_name(op);
    if (op == qp::PostOp::send) {
        if (peer)
            post_peer_receive(*peer);
    } else if (qp::is_atomic(op)) {
        aim_remote(wr.wr.atomic.remote_addr, wr.wr.atomic.rkey, name, req, peer, dest_qpn);
        wr.wr.atomic.compare_add = req.value("compare_add", std::uint64_t{0});
        wr.wr.atomic.swap = req.value("swap", std::uint64_t{0});
    } else {
        aim_remote(wr.wr.rdma.remote_addr, wr.wr.rdma.rkey, name, req, peer, dest_qpn);
    }
}

// Refuses an atomic the QP, its device or the peer held here (the
// responder) cannot do (atomic_post_problem), before anything is posted.
void check_atomic(qp::PostOp op, const HeldQp& q, const ibv_qp_attr& attr, const ibv_qp_init_attr& init,
                  const HeldQp* peer, std::uint64_t remote_addr)
{
    qp::AtomicPostFacts f;
    f.op = op;
    f.qpn = q.qp->qp_num;
    f.type = init.qp_type;
    f.device = q.device->name;
    f.atomic_cap = q.device->atomic_cap;
    f.state = attr.qp_state;
    f.max_rd_atomic = attr.max_rd_atomic;
    f.remote_addr = remote_addr;
    if (peer) {
        ibv_qp_attr pa{};
        ibv_qp_init_attr pinit{};
        if (int rc = ibv_query_qp(peer->qp.get(), &pa, IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_DEST_RD_ATOMIC, &pinit);
            rc != 0)
            throw SystemError(fmt::format("ibv_query_qp({:#x})", peer->qp->qp_num), rc);
        f.target = qp::AtomicPostFacts::Target{peer->qp->qp_num, pa.qp_access_flags, pa.max_dest_rd_atomic};
    }
    if (const auto problem = qp::atomic_post_problem(f))
        throw UsageError(*problem);
}

// One completion on `cq`, polled every 200 µs until `timeout`: what
// ibv_poll_cq returned last (0: none in time), and the time waited.
int wait_completion(ibv_cq* cq, ibv_wc& wc, std::chrono::milliseconds timeout, double& waited_ms)
{
    const auto start = std::chrono::steady_clock::now();
    int n = 0;
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
        if (std::chrono::steady_clock::now() - start > timeout)
            break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return n;
}

// After a send to a peer held here: its receive completion (up to 1 s),
// into the reply.
void reap_peer_receive(HeldQp& peer, Json& result)
{
    ibv_wc rwc{};
    const auto rstart = std::chrono::steady_clock::now();
    while (ibv_poll_cq(peer.cq.get(), 1, &rwc) == 0 &&
           std::chrono::steady_clock::now() - rstart < std::chrono::milliseconds(1000))
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (rwc.wr_id != 0) {
        const Completion pc = completion_of(rwc);
        if (pc.status != IBV_WC_SUCCESS)
            peer.last_error = pc;
        result["peer_completion"] = completion_json(pc);
    }
}

}  // namespace

HeldQps::HeldQps() = default;
HeldQps::~HeldQps() = default;

void HeldQps::release()
{
    qps_.clear();      // QPs, MRs, CQs first
    srqs_.clear();     // then the SRQs they used
    devices_.clear();  // then PDs and contexts
}

void HeldQps::close_if_empty()
{
    if (qps_.empty() && srqs_.empty()) {
        devices_.clear();
        none_left_ = true;
    }
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
    ibv_device_attr da{};
    if (int rc = ibv_query_device(dev->ctx.get(), &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", dev->name), rc);
    dev->atomic_cap = da.atomic_cap;
    auto& ref = *dev;
    devices_[dev->name] = std::move(dev);
    return ref;
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
    verbs::check_create_against_device(dev.ctx.get(), dev.name, c);

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
    q->srq = srq;
    q->qp = verbs::create_qp(dev.pd.get(), spec, &q->granted);
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
        srqs_.clear();  // "all": the SRQs too
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

Json HeldQps::query(const Json& req) { return describe(find(req)); }

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

HeldQp* HeldQps::peer_held_here(const HeldQp& q, std::uint32_t dest_qpn)
{
    if (auto it = qps_.find(dest_qpn); it != qps_.end() && it->second->device == q.device)
        return it->second.get();
    return nullptr;
}

Json HeldQps::post(const Json& req)
{
    HeldQp& q = find(req);
    const qp::PostOp op = qp::parse_post_op(req.value("operation", "send"));
    const std::string_view name = qp::post_op_name(op);
    const std::uint32_t size = req.value("size", qp::default_post_size);
    const auto timeout = std::chrono::milliseconds(req.value("timeout_ms", 5000u));
    if (size > q.buffer_size)
        throw UsageError(
            fmt::format("{} {} exceeds the QP's buffer of {} bytes", given(Given::size), size, q.buffer_size));
    if (qp::is_atomic(op) && (size != qp::atomic_operand_bytes || q.buffer_size < qp::atomic_operand_bytes))
        throw UsageError(fmt::format("{} {}: {} {} works on one {}-byte operand", given(Given::size), size,
                                     given(Given::op), name, qp::atomic_operand_bytes));

    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(q.qp.get(), &attr, IBV_QP_DEST_QPN | IBV_QP_STATE | IBV_QP_MAX_QP_RD_ATOMIC, &init);
        rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", q.qp->qp_num), rc);
    // The peer, when this holder has it too: receives for a send, remote
    // buffer for write/read and the atomics.
    HeldQp* peer = peer_held_here(q, attr.dest_qp_num);

    // An atomic's fetched value lands in the last 8 bytes of the buffer, so
    // the start of it (where the peer's atomics aim) stays the peer's
    // counter, also when both QPs post atomics at each other.
    std::uint8_t* local = q.buffer.get() + (qp::is_atomic(op) ? q.buffer_size - qp::atomic_operand_bytes : 0);
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(local), size, q.mr->lkey};
    ibv_send_wr wr{};
    wr.wr_id = ++q.posted;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    if (qp::is_atomic(op)) {
        // The responder is the peer QP whatever the address; without a
        // given address the target is its buffer (page-aligned).
        check_atomic(op, q, attr, init, peer, req.value("raddr", std::uint64_t{0}));
        // Clear the old bytes, so a stale value can never pass for a
        // fetched one.
        std::memset(local, 0, qp::atomic_operand_bytes);
    }
    prepare_operation(wr, op, req, peer, attr.dest_qp_num);
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(q.qp.get(), &wr, &bad); rc != 0)
        throw SystemError(fmt::format("ibv_post_send({:#x})", q.qp->qp_num), rc,
                          "the QP must be in RTS (or SQD) to post sends");

    ibv_wc wc{};
    double waited_ms = 0;
    const int n = wait_completion(q.cq.get(), wc, timeout, waited_ms);
    Json result{{"qpn", q.qp->qp_num}, {"operation", std::string(name)}, {"size", size}, {"waited_ms", waited_ms}};
    if (qp::is_atomic(op)) {
        result["remote_addr"] = wr.wr.atomic.remote_addr;
        result["rkey"] = wr.wr.atomic.rkey;
    }
    if (n < 0)
        throw SystemError("ibv_poll_cq", EIO);
    if (n == 0) {
        result["timed_out"] = true;
        return result;
    }
    const Completion c = completion_of(wc);
    if (c.status != IBV_WC_SUCCESS)
        q.last_error = c;
    result["completion"] = completion_json(c);
    if (qp::is_atomic(op) && c.status == IBV_WC_SUCCESS) {
        // The original 8 bytes at the target, in host order as the NIC
        // wrote them back.
        std::uint64_t fetched = 0;
        std::memcpy(&fetched, local, sizeof fetched);
        result["fetched"] = fetched;
    }
    if (peer && op == qp::PostOp::send)  // drain the peer's receive completion
        reap_peer_receive(*peer, result);
    return result;
}

HeldSrq& HeldQps::find_srq(std::uint32_t id)
{
    auto it = srqs_.find(id);
    if (it == srqs_.end()) {
        std::vector<std::string> held;
        for (const auto& [n, s] : srqs_)
            held.push_back(std::to_string(n));
        throw UsageError(fmt::format("SRQ {} is not held by this user's holder; held SRQs: {}", id,
                                     held.empty() ? "none" : fmt::format("{}", fmt::join(held, ", "))));
    }
    return *it->second;
}

Json HeldQps::describe_srq(const HeldSrq& s) const
{
    ibv_srq_attr attr{};
    if (int rc = ibv_query_srq(s.srq.get(), &attr); rc != 0)
        throw SystemError(fmt::format("ibv_query_srq(SRQ {})", s.id), rc);
    Json qps = Json::array();
    for (const auto& [qpn, q] : qps_)
        if (q->srq == &s)
            qps.push_back(qpn);
    return Json{{"id", s.id},
                {"device", s.device->name},
                {"max_wr", attr.max_wr},
                {"max_sge", attr.max_sge},
                {"limit", attr.srq_limit},
                {"posted", s.posted},
                {"qps", qps}};
}

Json HeldQps::srq_create(const Json& req)
{
    HeldDevice& dev = open_device(req.value("device", std::string()));
    verbs::SrqSpec spec;
    spec.max_wr = req.value("max_wr", spec.max_wr);
    spec.max_sge = req.value("max_sge", spec.max_sge);
    spec.limit = req.value("limit", spec.limit);
    ibv_device_attr da{};
    if (int rc = ibv_query_device(dev.ctx.get(), &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", dev.name), rc);
    if (da.max_srq == 0)
        throw OperationError(fmt::format("{} has no shared receive queues: its max_srq is 0", dev.name));
    if (spec.max_wr > static_cast<std::uint32_t>(da.max_srq_wr))
        throw UsageError(fmt::format("{} {} exceeds {}'s max_srq_wr of {}", given(Given::max_wr), spec.max_wr,
                                     dev.name, da.max_srq_wr));
    if (spec.max_sge > static_cast<std::uint32_t>(da.max_srq_sge))
        throw UsageError(fmt::format("{} {} exceeds {}'s max_srq_sge of {}", given(Given::max_sge), spec.max_sge,
                                     dev.name, da.max_srq_sge));
    if (spec.limit > spec.max_wr)
        throw UsageError(fmt::format("{} {} is above the SRQ's depth ({} {}): the event could never be armed below it",
                                     given(Given::srq_limit), spec.limit, given(Given::max_wr), spec.max_wr));
    auto s = std::make_unique<HeldSrq>();
    s->device = &dev;
    s->srq = verbs::create_srq(dev.pd.get(), spec, &s->granted);
    if (!s->srq)
        throw SystemError(fmt::format("ibv_create_srq_ex({}, max_wr {}, max_sge {})", dev.name, spec.max_wr,
                                      spec.max_sge),
                          errno, "a smaller --max-wr or --max-sge");
    s->id = next_srq_++;
    const std::uint32_t id = s->id;
    srqs_[id] = std::move(s);
    return describe_srq(*srqs_[id]);
}

Json HeldQps::srq_query(const Json& req) { return describe_srq(find_srq(req.value("id", 0u))); }

Json HeldQps::srq_modify(const Json& req)
{
    HeldSrq& s = find_srq(req.value("id", 0u));
    ibv_srq_attr attr{};
    int mask = 0;
    if (req.contains("limit")) {
        attr.srq_limit = req["limit"].get<std::uint32_t>();
        mask |= IBV_SRQ_LIMIT;
    }
    if (req.contains("max_wr")) {
        attr.max_wr = req["max_wr"].get<std::uint32_t>();
        mask |= IBV_SRQ_MAX_WR;
    }
    if (mask == 0)
        throw UsageError(fmt::format("nothing to change on SRQ {}: give {} or {}", s.id, given(Given::srq_limit),
                                     given(Given::max_wr)));
    if (int rc = ibv_modify_srq(s.srq.get(), &attr, mask); rc != 0)
        throw SystemError(fmt::format("ibv_modify_srq(SRQ {}{}{})", s.id,
                                      mask & IBV_SRQ_LIMIT ? fmt::format(", srq_limit {}", attr.srq_limit) : "",
                                      mask & IBV_SRQ_MAX_WR ? fmt::format(", max_wr {}", attr.max_wr) : ""),
                          rc,
                          "the limit must be below the receives the SRQ can hold; a provider may not resize an "
                          "SRQ (max_wr)");
    return describe_srq(s);
}

Json HeldQps::srq_destroy(const Json& req)
{
    Json destroyed = Json::array();
    if (req.value("all", false)) {
        for (const auto& [id, s] : srqs_)
            for (const auto& [qpn, q] : qps_)
                if (q->srq == s.get())
                    throw UsageError(fmt::format("SRQ {} serves QP {:#x}: destroy its QPs first", id, qpn));
        for (const auto& [id, s] : srqs_)
            destroyed.push_back(id);
        srqs_.clear();
    } else {
        HeldSrq& s = find_srq(req.value("id", 0u));
        std::vector<std::string> users;
        for (const auto& [qpn, q] : qps_)
            if (q->srq == &s)
                users.push_back(fmt::format("{:#x}", qpn));
        if (!users.empty())
            throw UsageError(fmt::format("SRQ {} serves QP {}: destroy {} first (ibv_destroy_srq refuses an SRQ "
                                         "in use)",
                                         s.id, fmt::join(users, ", "), users.size() == 1 ? "it" : "them"));
        const std::uint32_t id = s.id;
        if (int rc = ibv_destroy_srq(s.srq.get()); rc != 0)
            throw SystemError(fmt::format("ibv_destroy_srq(SRQ {})", id), rc);
        s.srq.release();  // destroyed above
        srqs_.erase(id);
        destroyed.push_back(id);
    }
    close_if_empty();
    return Json{{"destroyed", destroyed}, {"remaining", srqs_.size()}, {"holder_exits", none_left_}};
}

}  // namespace qps::ops
