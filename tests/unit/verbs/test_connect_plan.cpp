// connect()'s modify steps: which QP goes where, towards which of the
// peer's QPs. XRC has two QPs a side; the lab has no XRC device, so this is
// where their attributes are checked.
#include <doctest/doctest.h>

#include "src/verbs/link_resources.hpp"

using qps::net::Endpoint;
using qps::qp::ModifyRequest;
using qps::verbs::connect_plan;

namespace {

ModifyRequest link_given()
{
    ModifyRequest g;  // what connect() fills before the plan, as for a RoCE peer
    g.port = 1;
    g.pkey_index = 0;
    g.qkey = 0x11111111;
    g.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    g.rq_psn = 0x2222;
    g.sq_psn = 0x1111;
    g.dlid = 0;
    g.dgid = std::array<std::uint8_t, 16>{0xfe, 0x80};
    g.sgid_index = 1;
    g.hop_limit = 64;
    g.max_rd_atomic = 4;
    g.max_dest_rd_atomic = 8;
    g.timeout = 14;
    g.retry_cnt = 7;
    g.rnr_retry = 7;
    g.min_rnr_timer = 12;
    return g;
}

Endpoint xrc_peer()
{
    Endpoint peer;
    peer.qpn = 0x51;      // its XRC_SEND QP
    peer.xrc_qpn = 0x52;  // its XRC_RECV QP
    peer.srqn = 3;
    peer.psn = 0x2222;
    return peer;
}

}  // namespace

TEST_CASE("connect_plan: RC is one QP to RTS towards the peer's QP")
{
    Endpoint peer = xrc_peer();
    peer.xrc_qpn = 0;
    const auto plan = connect_plan(IBV_QPT_RC, link_given(), peer, IBV_MTU_1024);
    REQUIRE(plan.send.size() == 3);
    CHECK(plan.recv.empty());
    CHECK(*plan.send.back().request.state == IBV_QPS_RTS);
    CHECK(*plan.send[1].request.dest_qpn == 0x51);
}

TEST_CASE("connect_plan: XRC's sender goes to RTS towards the peer's XRC_RECV QP, its receiver to RTR towards the "
          "peer's XRC_SEND QP")
{
    const auto plan = connect_plan(IBV_QPT_XRC_SEND, link_given(), xrc_peer(), IBV_MTU_1024);
    REQUIRE(plan.send.size() == 3);
    REQUIRE(plan.recv.size() == 2);
    // The sender: INIT (port, P_Key, access, as the kernel requires of XRC_INI), RTR, RTS.
    CHECK(*plan.send[0].request.state == IBV_QPS_INIT);
    CHECK(*plan.send[0].request.port == 1);
    CHECK(*plan.send[1].request.state == IBV_QPS_RTR);
    CHECK(*plan.send[1].request.dest_qpn == 0x52);
    CHECK(*plan.send[1].request.path_mtu == IBV_MTU_1024);
    CHECK(plan.send[1].request.has_av());
    CHECK_FALSE(plan.send[1].request.max_dest_rd_atomic);  // XRC_INI answers nothing
    CHECK_FALSE(plan.send[1].request.min_rnr_timer);
    CHECK(*plan.send[2].request.state == IBV_QPS_RTS);
    CHECK(*plan.send[2].request.sq_psn == 0x1111);
    CHECK(*plan.send[2].request.max_rd_atomic == 4);
    CHECK(*plan.send[2].request.rnr_retry == 7);
    // The receiver: INIT with the access a responder needs, RTR towards the
    // peer's sender, whose packets start at its PSN; no RTS.
    CHECK(*plan.recv[0].request.state == IBV_QPS_INIT);
    CHECK((*plan.recv[0].request.access & IBV_ACCESS_REMOTE_WRITE) != 0);
    CHECK(*plan.recv[1].request.state == IBV_QPS_RTR);
    CHECK(*plan.recv[1].request.dest_qpn == 0x51);
    CHECK(*plan.recv[1].request.rq_psn == 0x2222);
    CHECK(*plan.recv[1].request.max_dest_rd_atomic == 8);
    CHECK(*plan.recv[1].request.min_rnr_timer == 12);
    CHECK(plan.recv[1].request.has_av());
}
