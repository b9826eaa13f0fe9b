// The link tests' pure rules: which op runs on which transport, where --srq
// fits (XRC among them), and the transport word both ways. Their messages
// in the core's own words (the command line puts its spellings in).
#include <doctest/doctest.h>
#include <string>

#include "src/error.hpp"
#include "src/perf/link_common.hpp"

using namespace qps::perf;

namespace {

template <class F>
std::string usage_error(F f)
{
    try {
        f();
    } catch (const qps::UsageError& e) {
        return e.what();
    }
    return "none";
}

}  // namespace

TEST_CASE("link rules: XRC runs every op RC runs, and its word is perftest's")
{
    for (Op op : {Op::send, Op::write, Op::read, Op::fadd, Op::cas}) {
        CHECK(usage_error([&] { check_op_transport(op, IBV_QPT_XRC_SEND); }) == "none");
        CHECK(usage_error([&] { check_op_transport(op, IBV_QPT_RC); }) == "none");
    }
    CHECK(usage_error([] { check_op_transport(Op::read, IBV_QPT_UC); }) != "none");
    CHECK(transport_name(IBV_QPT_XRC_SEND) == "xrc");
    CHECK(transport_from("xrc") == IBV_QPT_XRC_SEND);
}

TEST_CASE("link rules: each op asks its own extended send op, no other")
{
    CHECK(send_ops_flags(Op::send) == IBV_QP_EX_WITH_SEND);
    CHECK(send_ops_flags(Op::write) == IBV_QP_EX_WITH_RDMA_WRITE);
    CHECK(send_ops_flags(Op::read) == IBV_QP_EX_WITH_RDMA_READ);
    CHECK(send_ops_flags(Op::fadd) == IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
    CHECK(send_ops_flags(Op::cas) == IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
    static_assert(send_ops_flags(Op::send) != 0);
}

TEST_CASE("link rules: --srq is for send over rc or uc; XRC has its SRQ already")
{
    CHECK(usage_error([] { check_srq(true, Op::send, IBV_QPT_RC); }) == "none");
    CHECK(usage_error([] { check_srq(true, Op::send, IBV_QPT_UC); }) == "none");
    CHECK(usage_error([] { check_srq(false, Op::write, IBV_QPT_XRC_SEND); }) == "none");
    CHECK(usage_error([] { check_srq(true, Op::send, IBV_QPT_XRC_SEND); }) ==
          "the transport xrc receives through an XRC SRQ already (one per QP, which its peer's senders name): leave "
          "the SRQ out");
    CHECK(usage_error([] { check_srq(true, Op::send, IBV_QPT_UD); }) ==
          "the SRQ is built for connected QPs here: the transport rc or uc (not ud)");
    CHECK(usage_error([] { check_srq(true, Op::write, IBV_QPT_RC); }).starts_with("the SRQ: a shared receive queue"));
}
