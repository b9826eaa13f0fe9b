#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "src/kernel/sysfs.hpp"

using namespace qps::kernel;
namespace fs = std::filesystem;

TEST_CASE("parse_counter accepts one unsigned number and a newline")
{
    CHECK(parse_counter("0\n") == 0u);
    CHECK(parse_counter("18446744073709551615\n") == 18446744073709551615ull);
    CHECK_FALSE(parse_counter(""));
    CHECK_FALSE(parse_counter("\n"));
    CHECK_FALSE(parse_counter("12 34\n"));
    CHECK_FALSE(parse_counter("-1\n"));
    CHECK_FALSE(parse_counter("N/A\n"));
}

TEST_CASE("read_port_counters reads a counters directory, sorted, with bad files named")
{
    char tmpl[] = "/tmp/qpscope-sysfs-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path root(tmpl);
    const fs::path dir = root / "dev0" / "ports" / "1" / "hw_counters";
    fs::create_directories(dir);
    std::ofstream(dir / "rcvd_pkts") << "42\n";
    std::ofstream(dir / "ack_deferred") << "7\n";
    std::ofstream(dir / "lifespan") << "10\n";
    std::ofstream(dir / "garbage") << "abc\n";

    const CounterSet set = read_port_counters("dev0", 1, "hw_counters", root.string());
    CHECK(set.present);
    REQUIRE(set.counters.size() == 3);  // lifespan is a setting, not a counter
    CHECK(set.counters[0].name == "ack_deferred");
    CHECK(set.counters[0].value == 7u);
    CHECK(set.counters[1].name == "garbage");
    CHECK_FALSE(set.counters[1].value);
    CHECK(set.counters[1].error.find("abc") != std::string::npos);
    CHECK(set.counters[2].name == "rcvd_pkts");
    CHECK(set.counters[2].value == 42u);

    CHECK_FALSE(read_port_counters("dev0", 2, "hw_counters", root.string()).present);
    fs::remove_all(root);
}

TEST_CASE("packet counts: rxe's hw_counters first, the standard counters else; what rose since")
{
    char tmpl[] = "/tmp/qpscope-sysfs-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path root(tmpl);
    const fs::path hw = root / "rxe0" / "ports" / "1" / "hw_counters";
    const fs::path std_dir = root / "mlx0" / "ports" / "1" / "counters";
    fs::create_directories(hw);
    fs::create_directories(std_dir);
    std::ofstream(hw / "sent_pkts") << "100\n";
    std::ofstream(hw / "rcvd_pkts") << "90\n";
    std::ofstream(std_dir / "port_xmit_packets") << "5000\n";
    std::ofstream(std_dir / "port_rcv_packets") << "4000\n";

    const PacketCounts rxe = read_packet_counts("rxe0", 1, root.string());
    CHECK(rxe.sent == 100u);
    CHECK(rxe.received == 90u);
    const PacketCounts mlx = read_packet_counts("mlx0", 1, root.string());
    CHECK(mlx.sent == 5000u);
    CHECK(mlx.received == 4000u);
    const PacketCounts none = read_packet_counts("gone0", 1, root.string());
    CHECK_FALSE(none.sent);
    CHECK_FALSE(none.received);

    const PacketCounts later{150, 90};
    const PacketCounts rose = packets_since(rxe, later);
    CHECK(rose.sent == 50u);
    CHECK(rose.received == 0u);
    CHECK_FALSE(packets_since(later, rxe).sent);  // went down: reset, unknown
    CHECK_FALSE(packets_since(none, rxe).sent);
    fs::remove_all(root);
}

TEST_CASE("parse_cpu_list reads the kernel's CPU lists, ranges and repeats kept in order")
{
    using V = std::vector<int>;
    CHECK(parse_cpu_list("0-3,8,10-11\n") == V{0, 1, 2, 3, 8, 10, 11});
    CHECK(parse_cpu_list("5") == V{5});
    CHECK(parse_cpu_list("0,0") == V{0, 0});  // --cpus may share a CPU
    CHECK(parse_cpu_list("\n") == V{});       // a node without CPUs
    CHECK_FALSE(parse_cpu_list("3-1").has_value());
    CHECK_FALSE(parse_cpu_list("1,").has_value());
    CHECK_FALSE(parse_cpu_list("a").has_value());
    CHECK_FALSE(parse_cpu_list("1-").has_value());
    CHECK_FALSE(parse_cpu_list("-1").has_value());
    CHECK_FALSE(parse_cpu_list("1;2").has_value());
}

TEST_CASE("device_local_cpus reads the PCI function's local_cpulist, empty without one")
{
    char tmpl[] = "/tmp/qpscope-sysfs-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path root(tmpl);
    fs::create_directories(root / "mlx5_0" / "device");
    std::ofstream(root / "mlx5_0" / "device" / "local_cpulist") << "8-9,12\n";
    fs::create_directories(root / "rxe0");
    CHECK(device_local_cpus("mlx5_0", root.string()) == std::vector<int>{8, 9, 12});
    CHECK(device_local_cpus("rxe0", root.string()).empty());
    fs::remove_all(root);
}
