// The kernel consumers' own objects in sysfs: NVMe controllers, their
// fabrics address parsed as the kernel writes it (nvmf_get_address).
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "src/kernel/consumers.hpp"

using namespace qps::kernel;
namespace fs = std::filesystem;

TEST_CASE("a fabrics address: its fields, with or without the host's, and its newline")
{
    auto f = parse_fabrics_address("traddr=192.0.2.2,trsvcid=4420\n");
    CHECK(f.size() == 2);
    CHECK(f["traddr"] == "192.0.2.2");
    CHECK(f["trsvcid"] == "4420");
    f = parse_fabrics_address("traddr=fe80::1,trsvcid=4420,host_traddr=fe80::2,host_iface=eth0");
    CHECK(f["traddr"] == "fe80::1");
    CHECK(f["host_traddr"] == "fe80::2");
    CHECK(f["host_iface"] == "eth0");
    CHECK(parse_fabrics_address("").empty());
    CHECK(parse_fabrics_address("\n").empty());
    CHECK(parse_fabrics_address("garbage,=x").empty());  // no key: not a field
}

TEST_CASE("NVMe controllers: nvmeN only, in number order, each file read as one line")
{
    char tmpl[] = "/tmp/qpscope-nvme-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path root(tmpl);
    const auto controller = [&](const std::string& name, const std::string& transport, const std::string& state,
                                const std::string& address) {
        fs::create_directories(root / name);
        std::ofstream(root / name / "transport") << transport << "\n";
        std::ofstream(root / name / "state") << state << "\n";
        std::ofstream(root / name / "subsysnqn") << "nqn.2026-12.lab:nullb\n";
        std::ofstream(root / name / "address") << address << "\n";
    };
    controller("nvme10", "rdma", "resetting", "traddr=192.0.2.3,trsvcid=4420");
    controller("nvme2", "rdma", "live", "traddr=192.0.2.2,trsvcid=4420");
    controller("nvme0", "pcie", "live", "0000:00:04.0");
    fs::create_directories(root / "nvme-subsys0");  // another class's name
    const auto all = list_nvme_controllers(root.string());
    REQUIRE(all.size() == 3);
    CHECK(all[0].name == "nvme0");
    CHECK(all[0].transport == "pcie");
    CHECK(all[1].name == "nvme2");
    CHECK(all[1].state == "live");
    CHECK(all[1].subsysnqn == "nqn.2026-12.lab:nullb");
    CHECK(all[1].address == "traddr=192.0.2.2,trsvcid=4420");
    CHECK(all[1].address_fields.at("trsvcid") == "4420");
    CHECK(all[2].name == "nvme10");
    CHECK(all[2].state == "resetting");
    CHECK(list_nvme_controllers((root / "absent").string()).empty());
    fs::remove_all(root);
}
