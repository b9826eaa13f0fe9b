// A QP of the kernel's view decoded once (report::kernel_qp_report): the
// kernel's QP types (SMI and GSI beside the verbs ones, unknown kept), no
// port before RESET→INIT, migration state only where the kernel sent it.
#include <doctest/doctest.h>
#include <infiniband/verbs.h>

#include "src/report/kernel_qp.hpp"

using namespace qps;

TEST_CASE("kernel QP report: types, states, port and the optional members decoded once")
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.port = 0;
    q.lqpn = 0x11;
    q.type = 1;  // GSI
    q.state = IBV_QPS_RTS;
    q.comm = "ib_core";
    const auto gsi = report::kernel_qp_report(q);
    CHECK(gsi.device == "rxe0");
    CHECK_FALSE(gsi.port.has_value());
    CHECK(gsi.qpn == 0x11);
    CHECK(*gsi.type.name == "GSI");
    CHECK(*gsi.state.name == "RTS");
    CHECK_FALSE(gsi.mig_state.has_value());
    CHECK_FALSE(gsi.held);

    q.type = 0;
    CHECK(*report::kernel_qp_report(q).type.name == "SMI");
    q.type = IBV_QPT_RC;
    q.port = 1;
    q.path_mig_state = IBV_MIG_ARMED;
    q.rqpn = 0x12;
    q.pid = 42;
    const auto rc = report::kernel_qp_report(q, true);
    CHECK(*rc.type.name == "RC");
    CHECK(rc.port == 1u);
    CHECK(rc.mig_state->raw == IBV_MIG_ARMED);
    CHECK(*rc.mig_state->name == "ARMED");
    CHECK(rc.dest_qpn == 0x12u);
    CHECK(rc.pid == 42u);
    CHECK(rc.held);

    q.type = 7;  // no ib_qp_type has 7: kept, shown as unknown
    const auto odd = report::kernel_qp_report(q);
    CHECK(odd.type.raw == 7);
    CHECK_FALSE(odd.type.known);
}
