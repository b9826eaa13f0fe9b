// The verbs objects one side of a ping-pong or bandwidth test owns: device
// context, PD, send and receive CQs, one registered buffer (the only memory
// the peer can reach), the QP, and for UD the address handle to the peer.
// Declared parent-first so they are destroyed child-first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <infiniband/verbs.h>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/net/endpoint.hpp"
#include "src/qp/attributes.hpp"
#include "src/qp/plan.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/gid_choice.hpp"
#include "src/verbs/handles.hpp"
#include "src/verbs/qp_knobs.hpp"

namespace qps::verbs {

using AddressHandle = std::unique_ptr<ibv_ah, Destroy<&ibv_destroy_ah>>;

// bw --srq: a side's QPs that receive share one PD and one shared receive
// queue of the side's receive depth, made by the first QP on its context.
// Every receive lands in that first QP's receive half (any QP may take any
// receive, and the senders' data is one pattern); the SRQ holds no more
// receives than its depth, as each lane reposts only what it took.
struct SharedReceive {
    ibv_context* ctx = nullptr;  // the context it was made on: every QP of it must be there
    ProtectionDomain pd;
    SharedReceiveQueue srq;
    std::uint32_t depth = 0;  // receives it holds (granted max_wr may be higher)
    // Where every receive lands: the first QP's receive half.
    std::uintptr_t addr = 0;
    std::uint32_t length = 0, lkey = 0;
    std::uint32_t qps = 0;  // the QPs made on it
};

struct LinkSetup : QpKnobs {
    std::string device;              // "" = the first
    std::uint8_t port = 1;
    std::optional<std::uint32_t> gid_index;  // nullopt = choose the best
    ibv_qp_type type = IBV_QPT_RC;
    std::uint32_t buffer_bytes = 4096;  // per direction; the MR covers 2 x this (send half, receive half)
    std::uint32_t send_depth = 128, recv_depth = 128;
    std::uint32_t max_inline = 0;       // asked for; granted may be lower
    std::optional<ibv_mtu> mtu;         // nullopt = the port's active MTU
    // The peer may run atomics on this side's buffer (--op fadd|cas): the
    // MR and the QP grant remote atomic access.
    bool atomics = false;
    // A client: the GID kinds that reach its destination, most wanted first
    // (health::gid_kinds_for); the GID choice prefers them. Empty: no preference.
    std::vector<decode::GidKind> gid_kinds;
    // The side's opened device, shared by all its QPs; null: the resources
    // open `device` themselves.
    SharedDevice opened;
    // bw --srq on a receiving side: the SRQ (and PD) its QPs share; null:
    // each QP has a receive queue (and PD) of its own.
    std::shared_ptr<SharedReceive> shared_receive;
    // RC only (ping-pong asks): the extended verbs for these send ops
    // (IBV_QP_EX_WITH_*): the QP made with them (ibv_wr_*), both CQs with
    // ibv_create_cq_ex (ibv_start_poll). A device that refuses either gets
    // the legacy object instead (extended() is false then). 0: legacy.
    std::uint64_t send_ops = 0;
};

// The bytes one LinkResources pins against RLIMIT_MEMLOCK for `setup`: the
// send and the receive half (each rounded up to 64 bytes), in whole pages.
std::size_t registered_bytes(const LinkSetup& setup);

// The text a SystemError of a verb in our own flow carries after the errno:
// what the errno means for that verb (decode/verbs_errno.hpp, the table
// `explain errno N --verb VERB` prints), the attributes passed (`passed`,
// may be empty), the explain command that lists the checks, then `otherwise`.
std::string verb_failure_hint(std::string_view verb, int err, const std::string& passed, std::string_view otherwise);

class LinkResources {
public:
    // Opens the device, creates everything, moves the QP to INIT.
    explicit LinkResources(const LinkSetup& setup);
    // The same on the device rdma_cm bound `id` to (its port; the GID and
    // the path are rdma_cm's): the QP made with rdma_create_qp, then
    // connected by rdma_connect / rdma_accept, then cm_established().
    // Takes `id` only when it succeeds (a server can still reject it).
    LinkResources(const LinkSetup& setup, CmId& id);
    // INIT -> RTR -> RTS towards the peer (UD: RTR/RTS and an address handle).
    void connect(const net::Endpoint& peer);
    // "sgid_index 1 = <gid> (IPv4 192.0.2.1), dgid <gid> (...)": the address
    // attributes connect() passes towards `peer`.
    std::string address_passed(const net::Endpoint& peer) const;

    // rdma_cm: what this side offers in a connect request or an accept
    // (reads in flight each way, retry counts); `theirs` is the request's,
    // when accepting.
    rdma_conn_param cm_param(const rdma_conn_param* theirs = nullptr) const;
    // rdma_cm, once ESTABLISHED: this side's endpoint as the QP has it (the
    // GID rdma_cm chose, the path MTU, reads in flight).
    void cm_established();
    // rdma_cm: the peer's endpoint (its buffer, for RDMA ops and the report).
    void cm_peer(const net::Endpoint& peer) { remote_ = peer; }
    rdma_cm_id* cm_id() const { return cm_.get(); }

    const net::Endpoint& local() const { return local_; }
    const GidChoice& gid() const { return gid_; }
    std::uint32_t granted_inline() const { return granted_inline_; }
    std::uint8_t* send_buf() const { return buffer_.get(); }
    std::uint8_t* recv_buf() const { return buffer_.get() + half_; }
    std::uint32_t lkey() const { return mr_->lkey; }
    ibv_qp* qp() const { return qp_.get(); }
    ibv_cq* send_cq() const { return send_cq_.get(); }
    ibv_cq* recv_cq() const { return recv_cq_.get(); }
    // LinkSetup::send_ops: the extended QP and CQs, when the device made
    // all three (null each otherwise). send_cq()/recv_cq() are the same
    // CQs, for the legacy verbs.
    bool extended() const { return qp_ex_ && send_cq_ex_ && recv_cq_ex_; }
    ibv_qp_ex* qp_ex() const { return qp_ex_; }
    ibv_cq_ex* send_cq_ex() const { return send_cq_ex_; }
    ibv_cq_ex* recv_cq_ex() const { return recv_cq_ex_; }
    // bw --srq: the SRQ this QP takes its receives from (null: its own queue).
    const SharedReceive* shared_receive() const { return shared_.get(); }
    // Where receives are posted: the shared SRQ (--srq), this side's XRC SRQ
    // (--transport xrc), or null: the QP's own receive queue.
    ibv_srq* srq() const { return shared_ ? shared_->srq.get() : xrc_srq_.get(); }
    // --transport xrc: the XRC_RECV QP the peer's XRC_SEND QP connects to
    // (qp() is this side's XRC_SEND QP); null otherwise.
    ibv_qp* xrc_recv_qp() const { return recv_qp_.get(); }
    ibv_ah* ah() const { return ah_.get(); }
    std::uint32_t remote_qpn() const { return remote_.qpn; }
    const net::Endpoint& remote() const { return remote_; }
    ibv_qp_type type() const { return setup_.type; }
    const std::string& device_name() const { return device_name_; }
    ibv_port_attr port_attr() const;
    // The path MTU connect() set: the lower of both sides' (bytes).
    std::uint32_t path_mtu_bytes() const { return cm_ ? local_.mtu : std::min(local_.mtu, remote_.mtu); }
    // RDMA reads (and atomics) this side keeps in flight once connected:
    // this device's initiator limit or the peer's responder limit, the lower.
    std::uint8_t reads_in_flight() const { return rd_atomic_; }
    // rdma_cm: the traffic class the QP's path has (cm_established); else
    // what this side asked for.
    std::uint8_t traffic_class() const { return cm_ ? traffic_class_ : setup_.traffic_class; }

private:
    // Everything on the opened context (both constructors).
    void create(ibv_context* ctx);
    // OperationError when this side's GID and the peer's are of different IP
    // families on RoCE (IPv4-mapped against IPv6), before any verb sees them.
    void check_gid_families(const net::Endpoint& peer) const;

    LinkSetup setup_;
    std::string device_name_;
    GidChoice gid_;
    CmId cm_;              // rdma_cm: the ID, and through it the context; destroyed last
    SharedDevice device_;  // before the objects made on it: closed after them
    ibv_context* ctx_ = nullptr;  // device_'s or cm_'s
    std::shared_ptr<SharedReceive> shared_;  // bw --srq: its PD is the QP's; released before the context
    ProtectionDomain pd_;                    // null with shared_
    XrcDomain xrcd_;                         // --transport xrc: outlives the XRC SRQ and QP made in it
    ibv_pd* pd() const { return shared_ ? shared_->pd.get() : pd_.get(); }
    // bw --srq: the shared PD and SRQ, made here when this is the first QP.
    void join_shared_receive(ibv_context* ctx);
    // --transport xrc: the XRC domain, its SRQ (completions on recv_cq_) and
    // the XRC_RECV QP in it; local_ gets their numbers.
    void make_xrc_receive(ibv_context* ctx);
    // Each QP's steps to its state towards `peer`, and their failure's text.
    void modify_through(ibv_qp* target, const std::vector<qp::Step>& steps, const net::Endpoint& peer, bool global);
    CompletionQueue send_cq_, recv_cq_;
    ibv_cq_ex* send_cq_ex_ = nullptr;  // LinkSetup::send_ops: send_cq_ made with ibv_create_cq_ex
    ibv_cq_ex* recv_cq_ex_ = nullptr;
    ibv_qp_ex* qp_ex_ = nullptr;  // LinkSetup::send_ops: qp_ made with them
    PageBuffer buffer_;  // page-aligned, zeroed
    std::size_t half_ = 0;
    MemoryRegion mr_;
    SharedReceiveQueue xrc_srq_;  // --transport xrc: this side's receives, named by the peer's sends
    QueuePair qp_;
    QueuePair recv_qp_;  // --transport xrc: the XRC_RECV QP
    AddressHandle ah_;
    std::uint32_t granted_inline_ = 0;
    // RDMA reads (and atomics) in flight: as initiator, the device's limit
    // until connect() lowers it to what the peer serves; as target, the
    // device's limit (announced in the endpoint). Both capped at 255, the
    // width of the QP attribute.
    std::uint8_t rd_atomic_ = 1, dest_rd_atomic_ = 1;
    std::uint8_t traffic_class_ = 0;
    net::Endpoint local_;   // what the peer needs to reach this side (mtu: this side's wish)
    net::Endpoint remote_;  // the peer's, once connected
};

// The modify steps connect() takes towards `peer`, from the attributes
// `given` (its dest_qpn is set here): `send` takes qp() to RTS towards the
// peer's QP (for XRC its XRC_RECV QP, xrc_qpn); for XRC `recv` takes this
// side's XRC_RECV QP to RTR towards the peer's XRC_SEND QP (qpn), whose
// packets start at the peer's psn. Empty `recv` for the other types.
struct ConnectPlan {
    std::vector<qp::Step> send, recv;
};
ConnectPlan connect_plan(ibv_qp_type type, qp::ModifyRequest given, const net::Endpoint& peer, ibv_mtu mtu);

// The GRH a UD receive buffer starts with.
inline constexpr std::uint32_t ud_grh_bytes = 40;
// The Q_Key both sides of a UD test use.
inline constexpr std::uint32_t ud_qkey = 0x11111111;

}  // namespace qps::verbs
