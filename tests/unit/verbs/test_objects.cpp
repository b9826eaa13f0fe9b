#include <cerrno>
#include <doctest/doctest.h>
#include <fcntl.h>

#include "src/error.hpp"
#include "src/json.hpp"
#include "src/verbs/create_qp.hpp"
#include "src/verbs/objects.hpp"

using qps::verbs::CreateRequest;
using qps::verbs::qp_init_attr_ex;
using qps::verbs::qp_spec;
using qps::verbs::QpSpec;

TEST_CASE("the one creation path asks ibv_create_qp_ex for exactly the spec, on the PD only")
{
    auto* pd = reinterpret_cast<ibv_pd*>(0x1000);  // never dereferenced: the attributes are pure
    auto* scq = reinterpret_cast<ibv_cq*>(0x2000);
    auto* rcq = reinterpret_cast<ibv_cq*>(0x3000);
    QpSpec s;
    s.type = IBV_QPT_UD;
    s.send_cq = scq;
    s.recv_cq = rcq;
    s.cap = {64, 32, 2, 3, 128};
    s.sq_sig_all = true;
    const ibv_qp_init_attr_ex a = qp_init_attr_ex(pd, s);
    // IBV_QP_INIT_ATTR_PD alone: libibverbs hands it to the provider's plain create_qp.
    CHECK(a.comp_mask == IBV_QP_INIT_ATTR_PD);
    CHECK(a.pd == pd);
    CHECK(a.qp_type == IBV_QPT_UD);
    CHECK(a.send_cq == scq);
    CHECK(a.recv_cq == rcq);
    CHECK(a.srq == nullptr);
    CHECK(a.xrcd == nullptr);
    CHECK(a.cap.max_send_wr == 64);
    CHECK(a.cap.max_recv_wr == 32);
    CHECK(a.cap.max_send_sge == 2);
    CHECK(a.cap.max_recv_sge == 3);
    CHECK(a.cap.max_inline_data == 128);
    CHECK(a.sq_sig_all == 1);
    CHECK(a.create_flags == 0);
    // The default: RC, one WR and one SGE each way, no inline, signaled sends only.
    const ibv_qp_init_attr_ex d = qp_init_attr_ex(pd, QpSpec{});
    CHECK(d.qp_type == IBV_QPT_RC);
    CHECK(d.cap.max_send_wr == 1);
    CHECK(d.cap.max_recv_sge == 1);
    CHECK(d.cap.max_inline_data == 0);
    CHECK(d.sq_sig_all == 0);
}

TEST_CASE("extended send ops are asked with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS beside the PD; refusals fall back")
{
    auto* pd = reinterpret_cast<ibv_pd*>(0x1000);
    QpSpec s;
    s.send_ops = IBV_QP_EX_WITH_SEND;
    const ibv_qp_init_attr_ex a = qp_init_attr_ex(pd, s);
    CHECK(a.comp_mask == (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS));
    CHECK(a.send_ops_flags == IBV_QP_EX_WITH_SEND);
    CHECK(a.pd == pd);
    // None asked: the plain path, send_ops_flags untouched.
    const ibv_qp_init_attr_ex d = qp_init_attr_ex(pd, QpSpec{});
    CHECK(d.comp_mask == IBV_QP_INIT_ATTR_PD);
    CHECK(d.send_ops_flags == 0);
    // An XRC_RECV QP has no send queue: never extended.
    QpSpec x;
    x.type = IBV_QPT_XRC_RECV;
    x.send_ops = IBV_QP_EX_WITH_SEND;
    CHECK(qp_init_attr_ex(nullptr, x).comp_mask == IBV_QP_INIT_ATTR_XRCD);
    // What a device without the extended verbs answers: the legacy object then.
    CHECK(qps::verbs::extended_refused(EOPNOTSUPP));
    CHECK(qps::verbs::extended_refused(ENOSYS));
    CHECK(qps::verbs::extended_refused(EINVAL));
    CHECK_FALSE(qps::verbs::extended_refused(ENOMEM));
    CHECK_FALSE(qps::verbs::extended_refused(0));
}

TEST_CASE("a QP on a shared receive queue asks for no receive queue; an XRC receive QP lives in its domain alone")
{
    auto* pd = reinterpret_cast<ibv_pd*>(0x1000);
    auto* cq = reinterpret_cast<ibv_cq*>(0x2000);
    auto* srq = reinterpret_cast<ibv_srq*>(0x5000);
    auto* xrcd = reinterpret_cast<ibv_xrcd*>(0x6000);
    QpSpec s;
    s.send_cq = cq;
    s.recv_cq = cq;
    s.cap = {16, 16, 1, 1, 0};
    s.srq = srq;
    const ibv_qp_init_attr_ex a = qp_init_attr_ex(pd, s);
    CHECK(a.srq == srq);
    CHECK(a.comp_mask == IBV_QP_INIT_ATTR_PD);
    CHECK(a.cap.max_send_wr == 16);
    CHECK(a.cap.max_recv_wr == 0);
    CHECK(a.cap.max_recv_sge == 0);

    QpSpec x;
    x.type = IBV_QPT_XRC_RECV;
    x.send_cq = cq;
    x.recv_cq = cq;
    x.xrcd = xrcd;
    const ibv_qp_init_attr_ex r = qp_init_attr_ex(pd, x);
    CHECK(r.comp_mask == IBV_QP_INIT_ATTR_XRCD);
    CHECK(r.xrcd == xrcd);
    CHECK(r.pd == nullptr);
    CHECK(r.send_cq == nullptr);
    CHECK(r.recv_cq == nullptr);
    CHECK(r.cap.max_send_wr == 0);

    // XRC_SEND: a PD and a send queue like any sender; no receive queue asked for by the caller here.
    QpSpec xs;
    xs.type = IBV_QPT_XRC_SEND;
    xs.send_cq = cq;
    xs.recv_cq = cq;
    CHECK(qp_init_attr_ex(pd, xs).comp_mask == IBV_QP_INIT_ATTR_PD);
    CHECK(qp_init_attr_ex(pd, xs).pd == pd);
    xs.cap = {8, 8, 1, 1, 0};  // a receive depth asked for (the link tests' setup has one): not passed on
    CHECK(qp_init_attr_ex(pd, xs).cap.max_send_wr == 8);
    CHECK(qp_init_attr_ex(pd, xs).cap.max_recv_wr == 0);
    CHECK(qp_init_attr_ex(pd, xs).cap.max_recv_sge == 0);
}

TEST_CASE("a basic SRQ is asked for on its PD with its depth and SGEs, the limit left for ibv_modify_srq")
{
    auto* pd = reinterpret_cast<ibv_pd*>(0x1000);
    qps::verbs::SrqSpec s;
    s.max_wr = 4;
    s.max_sge = 2;
    s.limit = 3;
    const ibv_srq_init_attr_ex a = qps::verbs::srq_init_attr_ex(pd, s);
    CHECK(a.srq_type == IBV_SRQT_BASIC);
    CHECK(a.comp_mask == (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD));
    CHECK(a.pd == pd);
    CHECK(a.attr.max_wr == 4);
    CHECK(a.attr.max_sge == 2);
    CHECK(a.attr.srq_limit == 0);  // ibv_create_srq ignores it: create_srq arms it after
    CHECK(a.xrcd == nullptr);
    CHECK(a.cq == nullptr);
}

TEST_CASE("an XRC SRQ is of its domain, with the CQ its completions go to, on its PD")
{
    auto* pd = reinterpret_cast<ibv_pd*>(0x1000);
    auto* xrcd = reinterpret_cast<ibv_xrcd*>(0x3000);
    auto* cq = reinterpret_cast<ibv_cq*>(0x2000);
    qps::verbs::SrqSpec s;
    s.max_wr = 64;
    s.xrcd = xrcd;
    s.cq = cq;
    const ibv_srq_init_attr_ex a = qps::verbs::srq_init_attr_ex(pd, s);
    CHECK(a.srq_type == IBV_SRQT_XRC);
    CHECK(a.comp_mask ==
          (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ));
    CHECK(a.pd == pd);
    CHECK(a.xrcd == xrcd);
    CHECK(a.cq == cq);
    CHECK(a.attr.max_wr == 64);
}

TEST_CASE("an XRC domain is opened on a file, created when missing; an XRC_RECV QP is opened by number in it")
{
    const ibv_xrcd_init_attr x = qps::verbs::xrcd_init_attr(7);
    CHECK(x.comp_mask == (IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS));
    CHECK(x.fd == 7);
    CHECK(x.oflags == O_CREAT);

    auto* xrcd = reinterpret_cast<ibv_xrcd*>(0x3000);
    const ibv_qp_open_attr o = qps::verbs::qp_open_attr(xrcd, 0x1234);
    CHECK(o.comp_mask == (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE));
    CHECK(o.qp_num == 0x1234u);
    CHECK(o.xrcd == xrcd);
    CHECK(o.qp_type == IBV_QPT_XRC_RECV);
}

TEST_CASE("qp create's request becomes the same spec, one CQ for both queues")
{
    CreateRequest c;
    c.type = IBV_QPT_UC;
    c.send_wr = 10;
    c.recv_wr = 20;
    c.send_sge = 2;
    c.recv_sge = 4;
    c.max_inline = 64;
    c.sq_sig_all = false;
    auto* cq = reinterpret_cast<ibv_cq*>(0x4000);
    const QpSpec s = qp_spec(c, cq);
    CHECK(s.type == IBV_QPT_UC);
    CHECK(s.send_cq == cq);
    CHECK(s.recv_cq == cq);
    CHECK(s.cap.max_send_wr == 10);
    CHECK(s.cap.max_recv_wr == 20);
    CHECK(s.cap.max_send_sge == 2);
    CHECK(s.cap.max_recv_sge == 4);
    CHECK(s.cap.max_inline_data == 64);
    CHECK_FALSE(s.sq_sig_all);
}

TEST_CASE("qp create's XRC options: xrc-recv needs its domain's file, nothing else takes one, no SRQ of ours")
{
    const auto refusal = [](const qps::Json& j) {
        try {
            qps::verbs::create_request_from_json(j);
        } catch (const qps::UsageError& e) {
            return std::string(e.what());
        }
        return std::string("taken");
    };
    CHECK(refusal({{"type", IBV_QPT_XRC_RECV}}) ==
          "the transport xrc-recv lives in an XRC domain: give the XRC domain's file FILE (the file every process "
          "that shares the domain opens; qp xrcd open FILE)");
    CHECK(refusal({{"type", IBV_QPT_XRC_RECV}, {"xrcd", "/tmp/d"}}) == "taken");
    CHECK(refusal({{"type", IBV_QPT_XRC_SEND}}) == "taken");
    CHECK(refusal({{"type", IBV_QPT_RC}, {"xrcd", "/tmp/d"}}) ==
          "the XRC domain's file /tmp/d: only an xrc-recv QP lives in an XRC domain (the transport rc takes a "
          "protection domain; an XRC SRQ: qp srq create the XRC domain's file)");
    CHECK(refusal({{"type", IBV_QPT_XRC_SEND}, {"srq", 1}}).starts_with(
        "the SRQ 1: the transport xrc-send has no receive queue to share"));
    CHECK(refusal({{"type", IBV_QPT_XRC_RECV}, {"xrcd", "/tmp/d"}, {"srq", 2}}).starts_with(
        "the SRQ 2: the transport xrc-recv has no receive queue to share"));
    // xrc-send has no receive side: the spec asks for none.
    CreateRequest c;
    c.type = IBV_QPT_XRC_SEND;
    CHECK(qp_spec(c, nullptr).cap.max_recv_wr == 0);
    CHECK(qp_spec(c, nullptr).cap.max_recv_sge == 0);
}
