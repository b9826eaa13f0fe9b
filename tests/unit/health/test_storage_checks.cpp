// doctor's storage.nvme_rdma: an NVMe-oF controller over RDMA, live or not,
// named with its target, its subsystem and what its state means.
#include <doctest/doctest.h>

#include "src/decode/nvme.hpp"
#include "src/health/storage_checks.hpp"

using namespace qps;

namespace {

kernel::NvmeController controller(std::string name, std::string transport, std::string state, std::string traddr)
{
    kernel::NvmeController c;
    c.name = std::move(name);
    c.transport = std::move(transport);
    c.state = std::move(state);
    c.subsysnqn = "nqn.2026-12.lab:qpscope-null";
    c.address = "traddr=" + traddr + ",trsvcid=4420";
    c.address_fields = kernel::parse_fabrics_address(c.address);
    c.reconnect_delay = "10";
    c.ctrl_loss_tmo = "600";
    return c;
}

}  // namespace

TEST_CASE("storage.nvme_rdma: one finding per controller over RDMA; live is ok, any other state fails with its meaning")
{
    CHECK(health::nvme_rdma_findings({}).empty());
    CHECK(health::nvme_rdma_findings({controller("nvme0", "pcie", "resetting", "x"), controller("nvme1", "tcp", "connecting", "192.0.2.9")})
              .empty());

    const auto fs = health::nvme_rdma_findings({controller("nvme0", "rdma", "live", "192.0.2.2"),
                                                controller("nvme1", "rdma", "connecting", "192.0.2.3"),
                                                controller("nvme2", "rdma", "dead", "fe80::2"),
                                                controller("nvme3", "rdma", "frozen", "192.0.2.4")});
    REQUIRE(fs.size() == 4);
    CHECK(fs[0].id == "storage.nvme_rdma");
    CHECK(fs[0].status == Status::ok);
    CHECK(fs[0].summary == "NVMe-oF controller nvme0 over RDMA to 192.0.2.2:4420 (nqn.2026-12.lab:qpscope-null) is live");

    CHECK(fs[1].status == Status::fail);
    CHECK(fs[1].summary.find("nvme1 over RDMA to 192.0.2.3:4420") != std::string::npos);
    CHECK(fs[1].summary.find("is connecting, not live") != std::string::npos);
    CHECK(fs[1].why.find("reconnect_delay") != std::string::npos);
    CHECK(fs[1].fix.find("qpscope path 192.0.2.3") != std::string::npos);
    CHECK(fs[1].fix.find("explain --log") != std::string::npos);
    bool saw_tmo = false;
    for (const auto& [k, v] : fs[1].seen)
        saw_tmo = saw_tmo || (k == "ctrl_loss_tmo" && v == "600");
    CHECK(saw_tmo);

    CHECK(fs[2].summary.find("to [fe80::2]:4420") != std::string::npos);  // IPv6 in brackets
    CHECK(fs[2].fix.find("qpscope path fe80::2") != std::string::npos);
    CHECK(fs[3].status == Status::fail);
    CHECK(fs[3].why.find("does not know") != std::string::npos);
}

TEST_CASE("the NVMe controller states: each known once, only live serves")
{
    int serving = 0;
    for (const auto& e : decode::nvme_state_table) {
        CHECK(decode::find_nvme_state(e.state) == &e);
        CHECK_FALSE(e.meaning.empty());
        serving += e.serving;
    }
    CHECK(serving == 1);
    CHECK(decode::find_nvme_state("live")->serving);
    CHECK(decode::find_nvme_state("unknown-state") == nullptr);
}
