// A QP of the kernel's view decoded once (report::kernel_qp_report): the
// kernel's QP types (SMI and GSI beside the verbs ones, unknown kept), no
// port before RESET→INIT, migration state only where the kernel sent it.
#include <doctest/doctest.h>
#include <infiniband/verbs.h>

#include "src/report/cm_id.hpp"
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
    q.type = 9;  // the kernel's IB_QPT_XRC_INI, iproute2's "XRC_INI"
    CHECK(*report::kernel_qp_report(q).type.name == "XRC_INI");
    q.type = 10;
    CHECK(*report::kernel_qp_report(q).type.name == "XRC_TGT");
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

TEST_CASE("a kernel QP's consumer: its rdma_cm ID's owner and addresses, and the NVMe-oF controller it serves")
{
    kernel::KernelQp q;
    q.dev_name = "rxe0";
    q.lqpn = 0x12;
    q.comm = "rdma_cm";
    kernel::KernelCmId id;
    id.dev_name = "rxe0";
    id.lqpn = 0x12;
    id.state = 9;  // RDMA_CM_CONNECT
    id.src = "192.0.2.1:53412";
    id.dst = "192.0.2.2:4420";
    id.comm = "nvme_rdma";
    kernel::KernelCmId other = id;
    other.lqpn = 0x13;
    other.comm = "rpcrdma";
    kernel::NvmeController pcie{"nvme0", "pcie", "live", "", "0000:00:04.0", {}, "", ""};
    kernel::NvmeController tcp{"nvme1", "tcp", "live", "nqn.tcp", "", {{"traddr", "192.0.2.2"}, {"trsvcid", "4420"}}, "", ""};
    kernel::NvmeController rdma{"nvme2", "rdma", "resetting", "nqn.2026-12.lab:nullb", "",
                                {{"traddr", "192.0.2.2"}, {"trsvcid", "4420"}}, "10", "600"};

    const auto c = report::ConsumerIndex({other, id}, {{pcie, tcp, rdma}, {}, {}}).of(q);
    REQUIRE(c);
    CHECK(c->owner == "nvme_rdma");
    CHECK(c->local == "192.0.2.1:53412");
    CHECK(c->remote == "192.0.2.2:4420");
    CHECK(c->cm_state.raw == 9);
    CHECK(c->serves == "nvme2");  // the RDMA one to that target, not the TCP one
    CHECK(c->serves_state == "resetting");
    CHECK(c->serves_target == "nqn.2026-12.lab:nullb");

    // Another port of the target: no controller; another QPN or device: no ID.
    kernel::KernelCmId elsewhere = id;
    elsewhere.dst = "192.0.2.2:4421";
    CHECK(report::ConsumerIndex({elsewhere}, {{rdma}, {}, {}}).of(q)->serves.empty());
    q.lqpn = 0x14;
    CHECK_FALSE(report::ConsumerIndex({id, other}, {{rdma}, {}, {}}).of(q));
    q.lqpn = 0x12;
    q.dev_name = "rxe1";
    CHECK_FALSE(report::ConsumerIndex({id}, {{rdma}, {}, {}}).of(q));

    // IPv6: the ID writes [addr]:port, sysfs the bare address.
    q.dev_name = "rxe0";
    id.dst = "[fe80::2]:4420";
    kernel::NvmeController v6{"nvme3", "rdma", "live", "nqn.v6", "", {{"traddr", "fe80::2"}, {"trsvcid", "4420"}}, "", ""};
    CHECK(report::ConsumerIndex({id}, {{rdma, v6}, {}, {}}).of(q)->serves == "nvme3");
}

TEST_CASE("each consumer's own object: rpcrdma's NFS mount, ib_iser's session, only by their owner")
{
    report::ConsumerObjects objects;
    objects.nfs = {{"192.0.2.2:/export", "/mnt/data", "nfs4", "192.0.2.2", "20049"}};
    objects.iscsi = {{"connection1:0", "session1", "192.0.2.2", "3260", "iqn.2026-12.lab:disk1", "LOGGED_IN"}};
    objects.nvme = {{"nvme0", "rdma", "live", "nqn.x", "", {{"traddr", "192.0.2.2"}, {"trsvcid", "20049"}}, "", ""}};

    auto s = report::served_by("rpcrdma", "192.0.2.2:20049", objects);
    CHECK(s.names == "/mnt/data");
    CHECK(s.state == "mounted");
    CHECK(s.target == "192.0.2.2:/export");
    s = report::served_by("ib_iser", "192.0.2.2:3260", objects);
    CHECK(s.names == "session1");
    CHECK(s.state == "LOGGED_IN");
    CHECK(s.target == "iqn.2026-12.lab:disk1");
    // The same address, another owner: nothing of the others'; an owner without objects: nothing.
    CHECK(report::served_by("nvme_rdma", "192.0.2.2:20049", objects).names == "nvme0");
    CHECK(report::served_by("ib_iser", "192.0.2.2:20049", objects).names.empty());
    CHECK(report::served_by("ib_srp", "192.0.2.2:3260", objects).names.empty());
    CHECK(report::served_by("rpcrdma", "", objects).names.empty());

    // cm list: a kernel ID carries it, a process's never.
    kernel::KernelCmId id;
    id.dev_name = "rxe0";
    id.dst = "192.0.2.2:3260";
    id.comm = "ib_iser";
    CHECK(report::cm_id_report(id, objects).serves.names == "session1");
    id.pid = 42;
    CHECK(report::cm_id_report(id, objects).serves.names.empty());
}
