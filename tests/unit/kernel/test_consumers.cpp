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

TEST_CASE("NFS mounts over RDMA: proto=rdma or rdma6 only, escapes undone, the server's port or 20049")
{
    // Lines in /proc/mounts's format (fs/proc_namespace.c show_vfsmnt, nfs_show_mount_options).
    const std::string table =
        "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
        "192.0.2.2:/export /mnt/data nfs4 rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,"
        "proto=rdma,port=20049,timeo=600,retrans=2,sec=sys,clientaddr=192.0.2.1,local_lock=none,addr=192.0.2.2 0 0\n"
        "192.0.2.3:/tcp /mnt/tcp nfs4 rw,relatime,vers=4.2,proto=tcp,port=0,addr=192.0.2.3 0 0\n"
        "[fe80::2]:/v3 /mnt/with\\040space nfs rw,vers=3,proto=rdma6,port=0,mountaddr=fe80::2,addr=fe80::2 0 0\n"
        "truncated-line\n";
    const auto m = parse_nfs_rdma_mounts(table);
    REQUIRE(m.size() == 2);
    CHECK(m[0].source == "192.0.2.2:/export");
    CHECK(m[0].mountpoint == "/mnt/data");
    CHECK(m[0].fstype == "nfs4");
    CHECK(m[0].addr == "192.0.2.2");
    CHECK(m[0].port == "20049");
    CHECK(m[1].mountpoint == "/mnt/with space");
    CHECK(m[1].addr == "fe80::2");
    CHECK(m[1].port == "20049");  // port=0: the default
    CHECK(parse_nfs_rdma_mounts("").empty());
    CHECK(list_nfs_rdma_mounts("/nonexistent/mounts").empty());
}

TEST_CASE("iSCSI connections: the portal of each, its session's target and state")
{
    char tmpl[] = "/tmp/qpscope-iscsi-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path root(tmpl);
    fs::create_directories(root / "iscsi_connection" / "connection2:0");
    fs::create_directories(root / "iscsi_connection" / "connection1:0");
    fs::create_directories(root / "iscsi_session" / "session1");
    fs::create_directories(root / "iscsi_session" / "session2");
    std::ofstream(root / "iscsi_connection" / "connection1:0" / "persistent_address") << "192.0.2.2\n";
    std::ofstream(root / "iscsi_connection" / "connection1:0" / "persistent_port") << "3260\n";
    std::ofstream(root / "iscsi_connection" / "connection2:0" / "address") << "192.0.2.3\n";
    std::ofstream(root / "iscsi_connection" / "connection2:0" / "port") << "3261\n";
    std::ofstream(root / "iscsi_session" / "session1" / "targetname") << "iqn.2026-12.lab:disk1\n";
    std::ofstream(root / "iscsi_session" / "session1" / "state") << "LOGGED_IN\n";
    std::ofstream(root / "iscsi_session" / "session2" / "state") << "FAILED\n";
    const auto all = list_iscsi_connections(root.string());
    REQUIRE(all.size() == 2);
    CHECK(all[0].name == "connection1:0");
    CHECK(all[0].session == "session1");
    CHECK(all[0].address == "192.0.2.2");
    CHECK(all[0].port == "3260");
    CHECK(all[0].targetname == "iqn.2026-12.lab:disk1");
    CHECK(all[0].state == "LOGGED_IN");
    CHECK(all[1].address == "192.0.2.3");  // no persistent_address: the connection's own
    CHECK(all[1].port == "3261");
    CHECK(all[1].state == "FAILED");
    CHECK(list_iscsi_connections((root / "none").string()).empty());
    fs::remove_all(root);
}
