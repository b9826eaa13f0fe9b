// The local checks of src/host/checks: each a pure function of raw values.
// A failure names the value seen, what is valid and the fix, and says
// whether the host or an option is at fault (exit 1 or 2).
#include <doctest/doctest.h>
#include <infiniband/verbs.h>
#include <initializer_list>
#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/finding.hpp"
#include "src/health/preflight.hpp"
#include "src/host/checks.hpp"
#include "unit/util.hpp"

using namespace qps;
using namespace qps::host;
using namespace qps::health;  // preflight: what the host checks feed
using qps::test::contains;
using qps::test::thrown;

namespace {

DeviceFile device_file(unsigned mode, std::string group, bool usable, bool in_group)
{
    DeviceFile f;
    f.path = "/dev/infiniband/uverbs0";
    f.exists = true;
    f.mode = mode;
    f.owner = "root";
    f.group = std::move(group);
    f.usable = usable;
    f.user = "alice";
    f.user_in_group = in_group;
    return f;
}

}  // namespace

TEST_CASE("device file: usable, missing, and each way of being refused")
{
    const Finding good = check_device_file("rxe0", device_file(0666, "root", true, false));
    CHECK(good.status == Status::ok);
    CHECK(good.id == "device.access");
    CHECK(contains(good.summary, "mode 0666"));

    DeviceFile gone;
    gone.path = "/dev/infiniband/uverbs3";
    const Finding missing = check_device_file("mlx5_0", gone);
    CHECK(missing.failed());
    CHECK(contains(missing.summary, "/dev/infiniband/uverbs3 does not exist"));
    CHECK(contains(missing.fix, "ib_uverbs"));

    // 0600 root:root: the site restricted it; say how to give access.
    const Finding closed = check_device_file("rxe0", device_file(0600, "root", false, false));
    CHECK(closed.failed());
    CHECK(closed.cause == Cause::host);
    CHECK(contains(closed.summary, "mode 0600 root:root"));
    CHECK(contains(closed.summary, "alice"));
    CHECK(contains(closed.fix, "chmod 0666 /dev/infiniband/uverbs0"));
    CHECK(contains(closed.fix, "usermod -aG rdma alice"));

    // 0660 root:rdma and the user is not in rdma: add them.
    const Finding group = check_device_file("rxe0", device_file(0660, "rdma", false, false));
    CHECK(contains(group.fix, "usermod -aG rdma alice"));
    CHECK_FALSE(contains(group.fix, "chmod"));

    // In the group already, but this process was started before: log in again.
    const Finding stale = check_device_file("rxe0", device_file(0660, "rdma", false, true));
    CHECK(contains(stale.fix, "log in again"));
}

TEST_CASE("memlock: enough, unlimited, CAP_IPC_LOCK, soft below hard, hard too low")
{
    Memlock m;
    m.soft_bytes = 64 * 1024;
    m.hard_bytes = 64 * 1024;
    CHECK(check_memlock(m, 64 * 1024, "the test buffers").status == Status::ok);

    const Finding low = check_memlock(m, 8 << 20, "the test buffers");
    CHECK(low.failed());
    CHECK(low.id == "memlock");
    CHECK(contains(low.summary, "ulimit -l) is 64 KiB"));
    CHECK(contains(low.summary, "the test buffers need 8192 KiB"));
    CHECK(contains(low.fix, "hard limit is too low"));
    CHECK(contains(low.fix, "limits.conf"));

    Memlock soft = m;
    soft.hard_unlimited = true;
    const Finding raise = check_memlock(soft, 8 << 20, "the test buffers");
    CHECK(contains(raise.fix, "ulimit -l unlimited"));

    Memlock cap = m;
    cap.cap_ipc_lock = true;
    const Finding lifted = check_memlock(cap, 1ull << 30, "the test buffers");
    CHECK(lifted.status == Status::ok);
    CHECK(contains(lifted.summary, "CAP_IPC_LOCK"));

    Memlock unlimited;
    unlimited.unlimited = true;
    CHECK(check_memlock(unlimited, 1ull << 40, "x").status == Status::ok);
}

TEST_CASE("cpu: allowed or not, with the allowed list in ranges")
{
    CHECK(cpu_list_text({0, 1, 2, 3, 6, 8, 9}) == "0-3,6,8-9");
    CHECK(cpu_list_text({}) == "none");
    CHECK(check_cpu(1, {0, 1}).status == Status::ok);
    const Finding bad = check_cpu(5, {0, 1});
    CHECK(bad.failed());
    CHECK(bad.cause == Cause::option);
    CHECK(contains(qps::UsageError(bad.summary).what(), "the CPU 5: this process may run on"));
    CHECK(contains(qps::UsageError(check_cpu(5, {0, 1}, qps::Given::cpus).summary).what(), "the CPU list 5:"));
    CHECK(contains(bad.summary, "CPUs 0-1 only"));
}

TEST_CASE("port state: ACTIVE, RoCE netdev down, IB without SM, disabled, no link")
{
    PortState p;
    p.device = "rxe0";
    p.state = 4;
    p.phys_state = 5;
    p.ethernet = true;
    p.netdev = "veth0";
    p.netdev_operstate = "up";
    CHECK(check_port_state(p).status == Status::ok);

    p.state = 1;
    p.phys_state = 3;
    p.netdev_operstate = "down";
    const Finding down = check_port_state(p);
    CHECK(down.failed());
    CHECK(down.cause == Cause::host);
    CHECK(contains(down.summary, "rxe0 port 1 is DOWN (physical state DISABLED), netdev veth0 is down"));
    CHECK(contains(down.fix, "ip link set veth0 up"));
    CHECK(down.port == 1u);

    PortState ib;
    ib.device = "mlx5_0";
    ib.state = 2;
    ib.phys_state = 5;
    CHECK(contains(check_port_state(ib).fix, "subnet manager"));
    ib.state = 1;
    ib.phys_state = 3;
    CHECK(contains(check_port_state(ib).fix, "disabled"));
    ib.phys_state = 2;
    CHECK(contains(check_port_state(ib).fix, "cable"));
}

TEST_CASE("gid index: valid, empty entry, out of range, and no -x on an empty RoCE table")
{
    const std::vector<GidEntry> valid{{0, "fe80::5054:ff:fe12:3456", "RoCE v1", "veth0", "", true},
                                      {1, "fe80::5054:ff:fe12:3456", "RoCE v2", "veth0", "", true},
                                      {2, "::ffff:10.0.0.1", "RoCE v1", "veth0", "10.0.0.1", false},
                                      {3, "::ffff:10.0.0.1", "RoCE v2", "veth0", "10.0.0.1", false}};
    CHECK(check_gid_index("rxe0", 1, 3, valid, 1024, true).status == Status::ok);

    const Finding empty = check_gid_index("rxe0", 1, 7, valid, 1024, true);
    CHECK(empty.failed());
    CHECK(empty.cause == Cause::option);
    CHECK(contains(qps::UsageError(empty.summary).what(), "the GID index 7: entry 7 of rxe0 port 1 is empty"));
    CHECK(qps::UsageError(qps::error_line(empty)).naming([](qps::Given g) { return "<" + std::string(qps::given_name(g)) + ">"; })
              .ends_with("or leave <gid_index> out and qpscope picks one"));
    CHECK(contains(empty.summary, "valid indices: 0 (fe80::5054:ff:fe12:3456, RoCE v1)"));
    CHECK(contains(empty.summary, "3 (::ffff:10.0.0.1, RoCE v2)"));

    const Finding range = check_gid_index("rxe0", 1, 5000, valid, 1024, true);
    CHECK(contains(range.summary, "out of range"));
    CHECK(contains(range.summary, "1024 entries"));

    CHECK(check_gid_index("rxe0", 1, std::nullopt, valid, 1024, true).status == Status::ok);
    const Finding none = check_gid_index("rxe0", 1, std::nullopt, {}, 1024, true);
    CHECK(none.failed());
    CHECK(none.cause == Cause::host);
    CHECK(contains(none.fix, "ip addr add"));
    // IB ports always have GID 0 from the SM; an empty list there is not ours to judge.
    CHECK(check_gid_index("mlx5_0", 1, std::nullopt, {}, 128, false).status == Status::ok);
}

TEST_CASE("mtu: at or below the active MTU, above it with the valid list")
{
    CHECK(check_mtu("rxe0", 1, 3, 3, 5).status == Status::ok);  // 1024 on a 1024 port
    const Finding high = check_mtu("rxe0", 1, 5, 3, 5);
    CHECK(high.failed());
    CHECK(high.cause == Cause::option);
    CHECK(contains(qps::UsageError(high.summary).what(), "the MTU 4096 is above rxe0 port 1's active MTU of 1024 bytes"));
    CHECK(contains(high.summary, "valid: 256, 512, 1024"));
    CHECK(contains(high.fix, "netdev MTU"));
}

TEST_CASE("RoCE header allowance: rxe 80 bytes, the kernel's generic rule 96")
{
    CHECK(netdev_mtu_for(1024, "rxe") == 1104);
    CHECK(netdev_mtu_for(4096, "rxe") == 4176);
    CHECK(netdev_mtu_for(4096, "mlx5") == 4192);
}

TEST_CASE("the first failure becomes the command's error: exit 2 for an option, 1 for the host")
{
    Finding a = ok("memlock", "fine");
    Finding opt;
    opt.id = "port.gid";
    opt.status = Status::fail;
    opt.cause = Cause::option;
    opt.summary = "--gid-index 7: entry 7 of rxe0 port 1 is empty";
    opt.fix = "use one of the valid indices";
    Finding host;
    host.id = "port.state";
    host.status = Status::fail;
    host.summary = "rxe0 port 1 is DOWN";
    host.fix = "ip link set veth0 up";

    CHECK(error_line(opt) == "--gid-index 7: entry 7 of rxe0 port 1 is empty; fix: use one of the valid indices");
    CHECK_NOTHROW(throw_first_failure({a}));
    CHECK(thrown<qps::UsageError>([&] { throw_first_failure({a, opt, host}); }) == error_line(opt));
    CHECK(thrown<qps::OperationError>([&] { throw_first_failure({a, host, opt}); }) == error_line(host));
}

TEST_CASE("transport: iWARP is refused by name before any network step; InfiniBand and RoCE pass")
{
    // RoCE devices report IBV_TRANSPORT_IB; their QPs connect like InfiniBand's.
    const Finding ib = check_connect_transport("mlx5_0", 1, IBV_TRANSPORT_IB);
    CHECK(ib.status == Status::ok);
    CHECK(ib.id == "device.transport");
    CHECK(ib.summary == "mlx5_0 port 1 (transport: InfiniBand): QPs connect with ibv_modify_qp");

    const Finding iw = check_connect_transport("siw0", 2, IBV_TRANSPORT_IWARP);
    CHECK(iw.failed());
    CHECK(iw.cause == Cause::host);
    CHECK(iw.device == "siw0");
    CHECK(iw.port == 2u);
    CHECK(iw.summary == "siw0 port 2 (transport: iWARP): iWARP QPs connect only through rdma_cm: give --cm on both "
                        "sides");
    CHECK(contains(iw.why, "ping-pong, bw, qpscope-mesh, qp create --pair"));
    CHECK(contains(iw.fix, "give --cm on both sides (ping-pong, bw, qpscope-mesh; doctor --cm for the loopback)"));
    CHECK(contains(iw.fix, "InfiniBand or RoCE device with -d"));
    CHECK(iw.seen.front().second == "iWARP (1)");

    // What a command stops with: one line, naming the device, the port and the transport.
    const std::string line = thrown<qps::OperationError>([&] { throw_first_failure({iw}); });
    CHECK(line.rfind("siw0 port 2 (transport: iWARP): iWARP QPs connect only through rdma_cm", 0) == 0);
    CHECK(contains(line, "; fix: give --cm on both sides"));
    CHECK(line.find('\n') == std::string::npos);

    // With --cm rdma_cm connects them: no refusal.
    const Finding iw_cm = check_connect_transport("siw0", 1, IBV_TRANSPORT_IWARP, {.cm = true});
    CHECK(iw_cm.status == Status::ok);
    CHECK(iw_cm.summary == "siw0 port 1 (transport: iWARP): QPs connect through rdma_cm (--cm)");
    // UD QPs (path, --transport ud): none on iWARP, --cm or not; InfiniBand and RoCE have them.
    for (const bool cm : {false, true}) {
        const Finding ud = check_connect_transport("siw0", 1, IBV_TRANSPORT_IWARP, {.cm = cm, .ud = true});
        CHECK(ud.failed());
        CHECK(ud.summary == "siw0 port 1 (transport: iWARP): iWARP has RC QPs only, over a TCP stream (no UD): path "
                            "and --transport ud need UD QPs");
        CHECK(contains(ud.fix, "on siw0 run ping-pong or bw with --cm"));
    }
    CHECK(check_connect_transport("rxe0", 1, IBV_TRANSPORT_IB, {.ud = true}).status == Status::ok);

    // Transports without an entry in cm_only_transport_table are not refused here.
    for (const int t :
         std::initializer_list<int>{IBV_TRANSPORT_UNKNOWN, IBV_TRANSPORT_USNIC, IBV_TRANSPORT_UNSPECIFIED, 42}) {
        CAPTURE(t);
        CHECK(check_connect_transport("dev0", 1, t).status == Status::ok);
    }
}

TEST_CASE("preflight: the connected tests check the transport unless they say the QPs are not connected")
{
    // ping-pong, bw (preflight_side) and qpscope-mesh (local_setup) leave
    // `connects` as it is; only `qp create` of a QP that stays in RESET or
    // INIT sets it false (ops::connects, tests/unit/qp).
    CHECK(PreflightSpec{}.connects);
}
