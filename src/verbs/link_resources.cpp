#include "src/verbs/link_resources.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <random>
#include <vector>

#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/decode/verbs_errno.hpp"
#include "src/error.hpp"
#include "src/qp/plan.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/objects.hpp"

namespace qps::verbs {

namespace {

std::uint32_t random_psn()
{
    std::random_device rd;
    return rd() & 0xffffff;
}

std::size_t half_bytes(const LinkSetup& setup)
{
    const std::size_t half = setup.buffer_bytes + (setup.type == IBV_QPT_UD ? ud_grh_bytes : 0);
    return (half + 63) & ~std::size_t{63};
}

}  // namespace

std::size_t registered_bytes(const LinkSetup& setup) { return pinned_bytes(2 * half_bytes(setup)); }

LinkResources::LinkResources(const LinkSetup& setup) : setup_(setup)
{
    device_ = setup.opened ? setup.opened : open_shared_device(setup.device);
    setup_.opened.reset();  // the device is held once, in device_
    device_name_ = device_->name;
    create(device_->ctx.get());
}

LinkResources::LinkResources(const LinkSetup& setup, CmId& id) : setup_(setup), cm_(std::move(id))
{
    setup_.opened.reset();
    device_name_ = cm_device_name(cm_.get());
    setup_.port = cm_->port_num;
    try {
        create(cm_->verbs);
    } catch (...) {
        id = std::move(cm_);  // the caller's again; the objects made on it go first
        throw;
    }
}

void LinkResources::create(ibv_context* const ctx)
{
    ctx_ = ctx;
    const LinkSetup& setup = setup_;
    ibv_device_attr da{};
    if (int rc = ibv_query_device(ctx, &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", device_name_), rc);
    if (setup.port < 1 || setup.port > da.phys_port_cnt)
        throw UsageError(fmt::format("{} {}: {} has ports 1..{}", given(Given::ib_port), setup.port, device_name_,
                                     da.phys_port_cnt));
    rd_atomic_ = static_cast<std::uint8_t>(std::clamp(da.max_qp_init_rd_atom, 1, 255));
    dest_rd_atomic_ = static_cast<std::uint8_t>(std::clamp(da.max_qp_rd_atom, 1, 255));
    const ibv_port_attr pa = port_attr();
    if (pa.state != IBV_PORT_ACTIVE)
        throw OperationError(fmt::format("{} port {} is not ACTIVE; 'qpscope ports -d {}' shows why", device_name_,
                                         setup.port, device_name_));

    if (cm_) {
        gid_.found = true;  // rdma_cm's choice, read once connected (cm_established)
        gid_.why = "chosen by rdma_cm for the route's source address";
    } else {
        gid_ = choose_gid(ctx, setup.port, setup.gid_index, setup.gid_kinds);
    }
    if (setup.gid_index && !gid_.found)
        throw UsageError(fmt::format("{} {} is not a valid GID entry of {} port {}", given(Given::gid_index),
                                     *setup.gid_index, device_name_, setup.port));
    if (!gid_.found && pa.link_layer == IBV_LINK_LAYER_ETHERNET)
        throw OperationError(fmt::format("{} port {} is RoCE but has no GID to use", device_name_, setup.port));

    if (setup_.shared_receive)
        join_shared_receive(ctx);
    else
        pd_ = alloc_pd(ctx, device_name_);
    // Extended CQs when asked (RC), else or when the device refuses them legacy ones.
    const bool extended = setup.send_ops && setup.type == IBV_QPT_RC;
    if (extended) {
        send_cq_ = create_cq_ex(ctx, setup.send_depth, device_name_, send_cq_ex_);
        if (send_cq_)
            recv_cq_ = create_cq_ex(ctx, setup.recv_depth, device_name_, recv_cq_ex_);
    }
    if (!send_cq_)
        send_cq_ = create_cq(ctx, setup.send_depth, device_name_);
    if (!recv_cq_)
        recv_cq_ = create_cq(ctx, setup.recv_depth, device_name_);

    // One buffer: the send half, then the receive half the peer may reach.
    half_ = half_bytes(setup);
    buffer_ = page_buffer(2 * half_);
    if (!buffer_)
        throw SystemError(fmt::format("aligned_alloc({} bytes)", pinned_bytes(2 * half_)), ENOMEM);
    mr_ = reg_mr(pd(), buffer_.get(), 2 * half_,
                 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                     (setup.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0));

    if (setup.type == IBV_QPT_XRC_SEND)
        make_xrc_receive(ctx);
    QpSpec spec;
    spec.type = setup.type;
    spec.send_cq = send_cq_.get();
    spec.recv_cq = recv_cq_.get();
    spec.cap = {setup.send_depth, setup.recv_depth, 1, 1, setup.max_inline};
    if (shared_) {
        spec.srq = shared_->srq.get();
        if (shared_->length == 0) {  // the first QP: every receive lands in its receive half
            shared_->addr = reinterpret_cast<std::uintptr_t>(recv_buf());
            shared_->length = static_cast<std::uint32_t>(half_);
            shared_->lkey = mr_->lkey;
        }
    }
    // rdma_cm keeps the QP on the ID (rdma_connect and rdma_accept move it
    // to RTS) and moves it to INIT.
    ibv_qp_cap granted{};
    const auto make = [&] {
        if (!cm_)
            qp_ = create_qp(pd(), spec, &granted);
        else
            qp_.reset(create_cm_qp(cm_.get(), pd(), spec, &granted));
    };
    // The extended send ops when asked and both CQs are extended (else the
    // loops run legacy: the QP is made as before); a device that refuses
    // them gets the legacy QP (the same caps).
    const bool extended_qp = extended && send_cq_ex_ && recv_cq_ex_;
    const auto make_any = [&] {
        spec.send_ops = extended_qp ? setup.send_ops : 0;
        make();
        if (!qp_ && spec.send_ops && extended_refused(errno)) {
            spec.send_ops = 0;
            make();
        }
    };
    make_any();
    if (!qp_ && setup.max_inline) {  // inline refused: run without it
        spec.cap.max_inline_data = 0;
        make_any();
    }
    if (!qp_)
        throw SystemError(fmt::format("{}({})", cm_ ? "rdma_create_qp_ex" : "ibv_create_qp_ex", device_name_), errno,
                          "'qpscope qp create' with the same depths names the cap the device refuses");
    granted_inline_ = granted.max_inline_data;
    if (spec.send_ops)
        qp_ex_ = ibv_qp_to_qp_ex(qp_.get());  // null if the provider did not make it extended
    if (shared_)
        ++shared_->qps;

    local_.qpn = qp_->qp_num;
    local_.psn = random_psn();
    local_.lid = pa.lid;
    local_.gid = gid_.gid;
    local_.gid_index = gid_.index;
    local_.rkey = mr_->rkey;
    local_.addr = reinterpret_cast<std::uintptr_t>(recv_buf());
    local_.size = half_;
    const ibv_mtu mtu = setup.mtu.value_or(pa.active_mtu);
    if (mtu > pa.active_mtu)
        throw UsageError(fmt::format("{} {} is above {} port {}'s active MTU of {} bytes", given(Given::mtu),
                                     128 << mtu, device_name_, setup.port, 128 << pa.active_mtu));
    local_.mtu = 128u << mtu;
    local_.max_dest_rd_atomic = dest_rd_atomic_;
}

void LinkResources::make_xrc_receive(ibv_context* ctx)
{
    // A domain of this process only (no file): the peer reaches it through
    // the XRC_RECV QP's and the SRQ's numbers in the endpoint.
    xrcd_ = open_xrcd(ctx, -1);
    if (!xrcd_)
        throw SystemError(fmt::format("ibv_open_xrcd({})", device_name_), errno);
    SrqSpec spec;
    spec.max_wr = setup_.recv_depth;
    spec.max_sge = 1;
    spec.xrcd = xrcd_.get();
    spec.cq = recv_cq_.get();  // an XRC SRQ's completions go to its own CQ, the one the loops poll
    xrc_srq_ = create_srq(pd(), spec);
    if (!xrc_srq_)
        throw SystemError(fmt::format("ibv_create_srq_ex({}, XRC, max_wr {})", device_name_, spec.max_wr), errno,
                          "a smaller receive depth");
    QpSpec recv;
    recv.type = IBV_QPT_XRC_RECV;
    recv.xrcd = xrcd_.get();
    recv_qp_ = create_qp(nullptr, recv);
    if (!recv_qp_)
        throw SystemError(fmt::format("ibv_create_qp_ex({}, XRC_RECV)", device_name_), errno);
    std::uint32_t srqn = 0;
    if (int rc = ibv_get_srq_num(xrc_srq_.get(), &srqn); rc != 0)
        throw SystemError(fmt::format("ibv_get_srq_num({})", device_name_), rc);
    local_.xrc_qpn = recv_qp_->qp_num;
    local_.srqn = srqn;
}

void LinkResources::join_shared_receive(ibv_context* ctx)
{
    // Held here, not in setup_: setup_ outlives the context, the SRQ must not.
    shared_ = std::move(setup_.shared_receive);
    SharedReceive& sr = *shared_;
    if (sr.pd) {
        if (sr.ctx != ctx)
            throw OperationError(fmt::format("{}: the QPs sharing one SRQ must be on one device context; this "
                                             "QP's {} is another",
                                             given(Given::srq), device_name_));
        return;
    }
    ibv_device_attr da{};
    if (int rc = ibv_query_device(ctx, &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", device_name_), rc);
    if (da.max_srq == 0)
        throw OperationError(fmt::format("{}: {} has no shared receive queues (its max_srq is 0)", given(Given::srq),
                                         device_name_));
    if (setup_.recv_depth > static_cast<std::uint32_t>(da.max_srq_wr))
        throw UsageError(fmt::format("{} {} exceeds {}'s max_srq_wr of {}: with --srq it is the SRQ's depth",
                                     given(Given::recv_wr), setup_.recv_depth, device_name_, da.max_srq_wr));
    sr.ctx = ctx;
    sr.pd = alloc_pd(ctx, device_name_);
    SrqSpec spec;
    spec.max_wr = setup_.recv_depth;
    spec.max_sge = 1;
    sr.srq = create_srq(sr.pd.get(), spec);
    if (!sr.srq)
        throw SystemError(fmt::format("ibv_create_srq_ex({}, max_wr {})", device_name_, spec.max_wr), errno,
                          "a smaller receive depth");
    sr.depth = spec.max_wr;
}

ibv_port_attr LinkResources::port_attr() const
{
    ibv_port_attr pa{};
    if (int rc = ibv_query_port(ctx_, setup_.port, &pa); rc != 0)
        throw SystemError(fmt::format("ibv_query_port({}, {})", device_name_, setup_.port), rc);
    return pa;
}

std::string LinkResources::address_passed(const net::Endpoint& peer) const
{
    const auto with_ipv4 = [](const std::array<std::uint8_t, 16>& g) {
        const auto v4 = decode::gid_ipv4(g);
        return fmt::format("{} ({}{})", decode::format_gid(g), decode::gid_kind_name(decode::gid_kind(g)),
                           v4 ? " " + *v4 : std::string());
    };
    return fmt::format("sgid_index {} = {}, dgid {}", local_.gid_index, with_ipv4(local_.gid), with_ipv4(peer.gid));
}

rdma_conn_param LinkResources::cm_param(const rdma_conn_param* theirs) const
{
    rdma_conn_param p{};
    p.responder_resources = dest_rd_atomic_;
    p.initiator_depth = rd_atomic_;
    if (theirs) {  // accepting: serve no more than the client initiates, and the other way round
        p.responder_resources = std::min(p.responder_resources, theirs->initiator_depth);
        p.initiator_depth = std::min(p.initiator_depth, theirs->responder_resources);
    }
    p.retry_count = setup_.retry_cnt;
    p.rnr_retry_count = setup_.rnr_retry;
    return p;
}

void LinkResources::cm_established()
{
    // rdma_cm has no option for the RNR NAK timer: RTS -> RTS may change it.
    if (setup_.min_rnr_timer != link_min_rnr_timer) {
        ibv_qp_attr rts{};
        rts.min_rnr_timer = setup_.min_rnr_timer;
        if (int rc = ibv_modify_qp(qp_.get(), &rts, IBV_QP_MIN_RNR_TIMER); rc != 0)
            throw SystemError(fmt::format("ibv_modify_qp({:#x} RTS -> RTS, min_rnr_timer {})", qp_->qp_num,
                                          setup_.min_rnr_timer),
                              rc, verb_failure_hint("modify_qp", rc, "", ""));
    }
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(qp_.get(), &attr, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MAX_QP_RD_ATOMIC, &init); rc != 0)
        throw SystemError(fmt::format("ibv_query_qp({:#x})", qp_->qp_num), rc);
    local_.mtu = 128u << attr.path_mtu;
    rd_atomic_ = static_cast<std::uint8_t>(std::max<int>(attr.max_rd_atomic, 1));
    if (attr.ah_attr.is_global) {
        ibv_gid gid{};
        if (ibv_query_gid(ctx_, setup_.port, attr.ah_attr.grh.sgid_index, &gid) == 0) {
            std::memcpy(gid_.gid.data(), gid.raw, 16);
            local_.gid = gid_.gid;
        }
        gid_.index = attr.ah_attr.grh.sgid_index;
        local_.gid_index = gid_.index;
        traffic_class_ = attr.ah_attr.grh.traffic_class;
    }
    gid_.why = fmt::format("chosen by rdma_cm: the GID of {}", cm_address_text(rdma_get_local_addr(cm_.get())));
}

std::string verb_failure_hint(std::string_view verb, int err, const std::string& passed, std::string_view otherwise)
{
    std::vector<std::string> parts;
    if (const decode::VerbErrno* v = decode::find_verb_errno(verb, err))
        parts.push_back(std::string(v->meaning));
    if (!passed.empty())
        parts.push_back("passed " + passed);
    parts.push_back(fmt::format("'qpscope explain errno {} --verb {}' lists what to check", errno_name(err), verb));
    if (!otherwise.empty())
        parts.emplace_back(otherwise);
    return fmt::format("{}", fmt::join(parts, "; "));
}

void LinkResources::check_gid_families(const net::Endpoint& peer) const
{
    // RoCE v2 carries the GIDs as IP addresses: an IPv4-mapped source cannot
    // address an IPv6 destination or the other way round, and the kernel's
    // refusal (ibv_modify_qp to RTR: EINVAL) would not say so.
    const bool mine_v4 = decode::gid_kind(local_.gid) == decode::GidKind::ipv4;
    const bool theirs_v4 = decode::gid_kind(peer.gid) == decode::GidKind::ipv4;
    if (mine_v4 == theirs_v4 || port_attr().link_layer != IBV_LINK_LAYER_ETHERNET)
        return;
    throw OperationError(fmt::format(
        "{} port {}: the source GID and the peer's are of different IP families ({}), which RoCE v2 cannot "
        "connect (ibv_modify_qp to RTR would fail with EINVAL); fix: use a GID of the peer's family on this side "
        "({}; qpscope ports -d {} lists them, or give its netdev an {} address), or one of this side's family on "
        "the peer's",
        device_name_, setup_.port, address_passed(peer), given(Given::gid_index), device_name_,
        theirs_v4 ? "IPv4" : "IPv6"));
}

void LinkResources::connect(const net::Endpoint& peer)
{
    remote_ = peer;
    const bool global = !decode::gid_is_zero(peer.gid);
    qp::ModifyRequest given;
    given.port = setup_.port;
    given.pkey_index = setup_.pkey_index;
    given.sl = setup_.sl;
    given.qkey = ud_qkey;
    given.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                   (setup_.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    given.rq_psn = peer.psn;
    given.sq_psn = local_.psn;
    given.dlid = peer.lid;
    if (global) {
        given.dgid = peer.gid;
        given.sgid_index = static_cast<std::uint8_t>(local_.gid_index);
        given.hop_limit = 64;
        if (setup_.traffic_class)
            given.traffic_class = setup_.traffic_class;
        if (setup_.flow_label)
            given.flow_label = setup_.flow_label;
    }
    // The exchange admits 1..255 only; a peer of another path is held to it.
    rd_atomic_ = static_cast<std::uint8_t>(
        std::min<std::uint32_t>(rd_atomic_, std::clamp<std::uint32_t>(peer.max_dest_rd_atomic, 1, 255)));
    given.max_rd_atomic = rd_atomic_;
    given.max_dest_rd_atomic = dest_rd_atomic_;
    given.timeout = setup_.ack_timeout;
    given.retry_cnt = setup_.retry_cnt;
    given.rnr_retry = setup_.rnr_retry;
    given.min_rnr_timer = setup_.min_rnr_timer;
    if (global)
        check_gid_families(peer);
    // The exchange admits only the five MTUs; 256 if a peer of another path sent another.
    const ibv_mtu mtu = decode::mtu_from_bytes(std::min(local_.mtu, peer.mtu)).value_or(IBV_MTU_256);
    const ConnectPlan plan = connect_plan(setup_.type, given, peer, mtu);
    modify_through(qp_.get(), plan.send, peer, global);
    if (recv_qp_)
        modify_through(recv_qp_.get(), plan.recv, peer, global);
    if (setup_.type == IBV_QPT_UD) {
        ibv_ah_attr ah{};
        ah.dlid = peer.lid;
        ah.port_num = setup_.port;
        ah.sl = setup_.sl;
        if (global) {
            ah.is_global = 1;
            std::memcpy(ah.grh.dgid.raw, peer.gid.data(), 16);
            ah.grh.sgid_index = static_cast<std::uint8_t>(local_.gid_index);
            ah.grh.hop_limit = 64;
            ah.grh.traffic_class = setup_.traffic_class;
            ah.grh.flow_label = setup_.flow_label;
        }
        ah_.reset(ibv_create_ah(pd(), &ah));
        if (!ah_) {
            const int err = errno;
            throw SystemError("ibv_create_ah", err, verb_failure_hint("create_ah", err, address_passed(peer), ""));
        }
    }
}

void LinkResources::modify_through(ibv_qp* target, const std::vector<qp::Step>& steps, const net::Endpoint& peer,
                                   bool global)
{
    // What the QP has after RESET->INIT, for the address vector of the later
    // steps (which do not carry the port).
    ibv_qp_attr base{};
    base.port_num = setup_.port;
    for (const auto& step : steps) {
        ibv_qp_attr attr{};
        int mask = 0;
        qp::to_verbs(step.request, base, attr, mask);
        if (int rc = ibv_modify_qp(target, &attr, mask); rc != 0)
            throw SystemError(fmt::format("ibv_modify_qp({:#x} to state {})", target->qp_num,
                                          static_cast<int>(*step.request.state)),
                              rc,
                              verb_failure_hint("modify_qp", rc, global ? address_passed(peer) : std::string(),
                                                rc == EINVAL ? "'qpscope qp modify --dry-run' with the same "
                                                               "attributes explains the rules"
                                                             : ""));
    }
}

ConnectPlan connect_plan(ibv_qp_type type, qp::ModifyRequest given, const net::Endpoint& peer, ibv_mtu mtu)
{
    ConnectPlan plan;
    const bool xrc = type == IBV_QPT_XRC_SEND;
    given.dest_qpn = xrc ? peer.xrc_qpn : peer.qpn;
    plan.send = qp::plan_steps(type, IBV_QPS_RTS, given, mtu);
    if (xrc) {
        // The receiving QP only answers: RTR is all it needs, its requester
        // half (and so its send PSN) is never used.
        given.dest_qpn = peer.qpn;
        plan.recv = qp::plan_steps(IBV_QPT_XRC_RECV, IBV_QPS_RTR, given, mtu);
    }
    return plan;
}

}  // namespace qps::verbs
