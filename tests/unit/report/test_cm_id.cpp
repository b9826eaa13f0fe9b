// An rdma_cm ID of the kernel's view decoded once (report::cm_id_report):
// state and phase, port space, no device or port when the kernel gave none,
// addresses and QP only when it sent them.
#include <doctest/doctest.h>

#include "src/report/cm_id.hpp"

using namespace qps;

TEST_CASE("cm_id report: a connected ID and a listener without a port")
{
    kernel::KernelCmId c;
    c.dev_name = "rxe0";
    c.port = 1;
    c.id = 4;
    c.lqpn = 0x11;
    c.port_space = 0x106;
    c.state = 5;  // RDMA_CM_CONNECT
    c.src = "192.0.2.1:18515";
    c.dst = "192.0.2.1:40000";
    c.pid = 321;
    c.comm = "ib_send_lat";
    const auto r = report::cm_id_report(c);
    CHECK(r.device == "rxe0");
    CHECK(r.port == 1u);
    CHECK(r.id == 4u);
    CHECK(*r.state.name == "CONNECT");
    CHECK(r.state.raw == 5);
    CHECK(r.phase == "connected");
    CHECK(*r.port_space.name == "TCP");
    CHECK(r.local == "192.0.2.1:18515");
    CHECK(r.remote == "192.0.2.1:40000");
    CHECK(r.qpn == 0x11u);
    CHECK(r.pid == 321u);
    CHECK(r.comm == "ib_send_lat");

    kernel::KernelCmId l;
    l.dev_name = "rxe0";
    l.port = 0;  // a listener on every port: the kernel sends no port
    l.port_space = 0x106;
    l.state = 8;  // RDMA_CM_LISTEN
    l.src = "0.0.0.0:18515";
    const auto lr = report::cm_id_report(l);
    CHECK_FALSE(lr.port.has_value());
    CHECK(*lr.state.name == "LISTEN");
    CHECK(lr.phase == "listening");
    CHECK(lr.local == "0.0.0.0:18515");
    CHECK_FALSE(lr.remote.has_value());
    CHECK_FALSE(lr.qpn.has_value());
    CHECK_FALSE(lr.pid.has_value());
    CHECK_FALSE(lr.id.has_value());

    kernel::KernelCmId unbound;  // not bound to a device: no device, no port
    unbound.state = 0;
    const auto ur = report::cm_id_report(unbound);
    CHECK_FALSE(ur.device.has_value());
    CHECK(ur.phase == "idle");
    CHECK_FALSE(ur.local.has_value());
}

TEST_CASE("cm_id report: unknown state and port space are kept, not dropped")
{
    kernel::KernelCmId c;
    c.dev_name = "mlx5_0";
    c.state = 42;
    c.port_space = 0x999;
    c.comm = "nvmet_rdma";  // a kernel user's ID: a module name, no pid
    const auto r = report::cm_id_report(c);
    CHECK_FALSE(r.state.known);
    CHECK(*r.state.name == "UNKNOWN(0x2a)");
    CHECK(r.phase == "unknown");
    CHECK_FALSE(r.port_space.known);
    CHECK(r.port_space.raw == 0x999);
    CHECK(r.comm == "nvmet_rdma");
    CHECK_FALSE(r.pid.has_value());
}
