// doctor's host checks: kernel modules, RDMA devices or the NICs that could
// be ones (a made-up PCI tree), and error counters read twice.
#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "src/decode/counters.hpp"
#include "src/health/counter_checks.hpp"
#include "src/health/kernel_checks.hpp"
#include "unit/util.hpp"

using namespace qps::health;
using qps::kernel::Counter;
using qps::kernel::CounterSet;
using qps::test::contains;

namespace {

LoadedFn loaded_of(std::set<std::string> names)
{
    return [names = std::move(names)](const std::string& m) { return names.count(m) > 0; };
}

CounterSet counter_set(std::vector<std::pair<std::string, std::uint64_t>> values)
{
    CounterSet s;
    s.present = true;
    for (auto& [n, v] : values)
        s.counters.push_back(Counter{n, v, ""});
    // sorted by name, as read_port_counters returns them
    std::sort(s.counters.begin(), s.counters.end(), [](const Counter& a, const Counter& b) { return a.name < b.name; });
    return s;
}

struct PciTree {
    std::filesystem::path root = std::filesystem::temp_directory_path() / "qpscope-unit-pci";
    PciTree() { std::filesystem::remove_all(root); }
    ~PciTree() { std::filesystem::remove_all(root); }
    void add(const std::string& address, const std::string& vendor, const std::string& device,
             const std::string& cls, const std::string& driver)
    {
        const auto dir = root / address;
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "vendor") << vendor << "\n";
        std::ofstream(dir / "device") << device << "\n";
        std::ofstream(dir / "class") << cls << "\n";
        if (!driver.empty()) {
            std::filesystem::create_directories(root / "drivers" / driver);
            std::filesystem::create_directory_symlink(root / "drivers" / driver, dir / "driver");
        }
    }
};

}  // namespace

TEST_CASE("kernel modules: all there, rdma_ucm missing (warn), ib_uverbs missing (fail)")
{
    CHECK(check_kernel_modules(loaded_of({"ib_core", "ib_uverbs", "rdma_ucm"})).status == Status::ok);
    const Finding ucm = check_kernel_modules(loaded_of({"ib_core", "ib_uverbs"}));
    CHECK(ucm.status == Status::warn);
    CHECK(ucm.fix == "modprobe -a rdma_ucm (and list them in /etc/modules-load.d/rdma.conf to load at boot)");
    const Finding none = check_kernel_modules(loaded_of({}));
    CHECK(none.failed());
    CHECK(none.summary == "not loaded: ib_core, ib_uverbs, rdma_ucm");
}

TEST_CASE("PCI functions are read from sysfs, drivers from their symlink")
{
    PciTree t;
    t.add("0000:3b:00.0", "0x15b3", "0x101d", "0x020000", "mlx5_core");
    t.add("0000:00:1f.0", "0x8086", "0xa1c8", "0x060100", "");
    const auto pci = read_pci_functions(t.root.string());
    REQUIRE(pci.size() == 3);  // the two functions and the fake drivers/ directory
    const auto& mlx = pci[1];
    CHECK(mlx.address == "0000:3b:00.0");
    CHECK(mlx.vendor == 0x15b3);
    CHECK(mlx.device == 0x101d);
    CHECK(mlx.class_code == 0x020000);
    CHECK(mlx.driver == "mlx5_core");
    CHECK(pci[0].driver.empty());
}

TEST_CASE("devices present; none, with the NICs on the bus and what to load; none at all: Soft-RoCE")
{
    CHECK(check_devices_found({"mlx5_0", "mlx5_1"}, {}, loaded_of({})).summary == "2 RDMA devices: mlx5_0, mlx5_1");

    std::vector<PciFunction> pci{{"0000:3b:00.0", 0x15b3, 0x101d, 0x020000, "mlx5_core"},
                                 {"0000:5e:00.0", 0x8086, 0x1593, 0x020000, "ice"},
                                 {"0000:00:1f.6", 0x8086, 0x15bc, 0x020000, "e1000e"},
                                 {"0000:af:00.0", 0x15b3, 0x1017, 0x020000, ""}};
    const Finding f = check_devices_found({}, pci, loaded_of({"mlx5_core"}));
    CHECK(f.failed());
    CHECK(contains(f.summary, "0000:3b:00.0 NVIDIA/Mellanox ConnectX-4 and later, BlueField (15b3:101d), driver "
                              "mlx5_core"));
    CHECK(contains(f.summary, "0000:5e:00.0 Intel E810 (8086:1593), driver ice"));
    CHECK(contains(f.summary, "0000:af:00.0 NVIDIA/Mellanox ConnectX-4 and later, BlueField (15b3:1017), no driver "
                              "bound"));
    CHECK_FALSE(contains(f.summary, "e1000e"));
    CHECK(f.fix == "modprobe -a mlx5_ib irdma");

    // Unbound functions whose ids name their driver: EFA and Omni-Path are
    // RDMA drivers themselves; a ConnectX-3 is mlx4's, not mlx5's.
    const std::vector<PciFunction> unbound{{"0000:10:00.0", 0x1d0f, 0xefa1, 0x020000, ""},
                                           {"0000:20:00.0", 0x8086, 0x24f0, 0x020800, ""},
                                           {"0000:30:00.0", 0x15b3, 0x1007, 0x020000, ""},
                                           {"0000:40:00.0", 0x14e4, 0x16d7, 0x020000, ""}};
    const Finding u = check_devices_found({}, unbound, loaded_of({}));
    CHECK(contains(u.summary, "0000:10:00.0 Amazon Elastic Fabric Adapter (1d0f:efa1), no driver bound"));
    CHECK(contains(u.summary, "0000:20:00.0 Intel Omni-Path HFI (8086:24f0), no driver bound"));
    CHECK(contains(u.summary, "0000:30:00.0 NVIDIA/Mellanox ConnectX-3 (15b3:1007), no driver bound"));
    CHECK_FALSE(contains(u.summary, "0000:40:00.0"));  // an unbound Broadcom function may have no RDMA
    CHECK(u.fix == "modprobe -a efa hfi1 mlx4_core mlx4_ib");

    const Finding loaded = check_devices_found({}, {pci[0]}, loaded_of({"mlx5_core", "mlx5_ib"}));
    CHECK(contains(loaded.fix, "dmesg"));

    const Finding bare = check_devices_found({}, {pci[2]}, loaded_of({}));
    CHECK(bare.summary == "no RDMA device, and no RDMA-capable NIC on the PCI bus");
    CHECK(contains(bare.fix, "modprobe rdma_rxe; rdma link add rxe0 type rxe netdev IFACE"));
}

TEST_CASE("error counters: a rise is named with its meaning; congestion is ok; a reset warns; none rose")
{
    const CounterSet before = counter_set({{"symbol_error", 100}, {"completer_retry_err", 90}, {"np_cnp_sent", 5},
                                           {"sent_pkts", 1000}, {"link_downed", 3}});
    const CounterSet after = counter_set({{"symbol_error", 112}, {"completer_retry_err", 137}, {"np_cnp_sent", 9},
                                          {"sent_pkts", 5000}, {"link_downed", 0}});
    const auto f = rising_counter_findings("mlx5_0", 1, before, after, "hw_counters", 2.0);
    REQUIRE(f.size() == 4);
    // In the set's (name) order: completer_retry_err, link_downed, np_cnp_sent, symbol_error.
    CHECK(f[0].status == Status::warn);
    CHECK(f[0].summary == "completer_retry_err rose by 47 in 2 s (was 90, now 137): retries the requester made "
                          "after an ACK timeout");
    CHECK(contains(f[0].fix, "rxe retries forever at retry-cnt 7"));
    CHECK(f[1].status == Status::warn);
    CHECK(contains(f[1].summary, "link_downed went down from 3 to 0 in 2 s: it was reset"));
    CHECK(f[2].status == Status::ok);
    CHECK(contains(f[2].summary, "np_cnp_sent rose by 4"));
    CHECK(f[3].failed());
    CHECK(contains(f[3].summary, "symbol_error rose by 12"));

    const auto quiet = rising_counter_findings("rxe0", 1, before, before, "hw_counters", 1.0);
    REQUIRE(quiet.size() == 1);
    CHECK(quiet[0].status == Status::ok);
    CHECK(quiet[0].summary == "hw_counters/: none of 4 error counters rose in 1 s (5 counters read)");

    const auto missing = rising_counter_findings("rxe0", 1, {}, {}, "counters", 1.0);
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].status == Status::skipped);
    CHECK(contains(missing[0].summary, "counters/: not supported by this driver"));
}

TEST_CASE("the error counter table: unique names, known severities, lookups")
{
    CHECK(qps::decode::error_counter("retry_exceeded_err")->severity == qps::decode::CounterSeverity::warn);
    CHECK(qps::decode::error_counter("link_downed")->severity == qps::decode::CounterSeverity::fail);
    CHECK_FALSE(qps::decode::error_counter("sent_pkts"));
    CHECK(qps::decode::error_counter("vport_out_of_sequence")->name == "out_of_sequence");
    for (const auto& e : qps::decode::error_counter_table) {
        CHECK_FALSE(e.meaning.empty());
        CHECK_FALSE(e.check.empty());
    }
}

TEST_CASE("per-QP counters: unsupported drivers, none bound, a rise named with its QPs")
{
    using qps::kernel::QpCounter;
    const auto rxe = qp_counter_findings("rxe0", 1, "rxe", {}, {}, 1.0);
    REQUIRE(rxe.size() == 1);
    CHECK(rxe[0].status == Status::skipped);
    CHECK(contains(rxe[0].summary, "not supported by this driver (rxe)"));

    const auto none = qp_counter_findings("mlx5_0", 1, "mlx5_core", {}, {}, 1.0);
    REQUIRE(none.size() == 1);
    CHECK(none[0].status == Status::ok);
    CHECK(contains(none[0].summary, "rdma statistic qp set link mlx5_0/1 auto type on"));

    QpCounter c;
    c.dev_name = "mlx5_0";
    c.port = 1;
    c.id = 7;
    c.qpns = {0x11, 0x12};
    c.values = {{"rnr_nak_retry_err", 1}, {"np_cnp_sent", 10}, {"rx_write_requests", 100}};
    QpCounter later = c;
    later.values = {{"rnr_nak_retry_err", 4}, {"np_cnp_sent", 20}, {"rx_write_requests", 900}};
    const auto rose = qp_counter_findings("mlx5_0", 1, "mlx5_core", {c}, {later}, 2.0);
    REQUIRE(rose.size() == 1);  // congestion and traffic counters are not errors
    CHECK(rose[0].status == Status::warn);
    CHECK(rose[0].summary == "QP counter 7 (QPs 0x11, 0x12): rnr_nak_retry_err rose by 3 in 2 s: requests that "
                             "ended in RNR retry counter exceeded");
    const auto calm = qp_counter_findings("mlx5_0", 1, "mlx5_core", {c}, {c}, 2.0);
    CHECK(calm[0].summary == "1 per-QP counter bound: no error counter rose in 2 s");
    // Another port's counters are not this port's.
    CHECK(contains(qp_counter_findings("mlx5_0", 2, "mlx5_core", {c}, {later}, 2.0)[0].summary, "no per-QP counter"));
}
