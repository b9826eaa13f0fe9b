#include "src/health/storage_checks.hpp"

#include <fmt/format.h>

#include "src/decode/nvme.hpp"

namespace qps::health {

std::vector<Finding> nvme_rdma_findings(const std::vector<kernel::NvmeController>& controllers)
{
    std::vector<Finding> out;
    for (const auto& c : controllers) {
        if (c.transport != "rdma")
            continue;
        const auto field = [&](const char* key) {
            const auto it = c.address_fields.find(key);
            return it == c.address_fields.end() ? std::string() : it->second;
        };
        const std::string traddr = field("traddr");
        const std::string target = traddr.find(':') != std::string::npos
                                       ? fmt::format("[{}]:{}", traddr, field("trsvcid"))
                                       : fmt::format("{}:{}", traddr, field("trsvcid"));
        const decode::NvmeStateEntry* state = decode::find_nvme_state(c.state);
        Finding f;
        f.id = "storage.nvme_rdma";
        f.seen = {{"controller", c.name}, {"state", c.state}, {"address", c.address}, {"subsysnqn", c.subsysnqn}};
        if (!c.reconnect_delay.empty())
            f.seen.emplace_back("reconnect_delay", c.reconnect_delay);
        if (!c.ctrl_loss_tmo.empty())
            f.seen.emplace_back("ctrl_loss_tmo", c.ctrl_loss_tmo);
        if (state && state->serving) {
            f.status = Status::ok;
            f.summary = fmt::format("NVMe-oF controller {} over RDMA to {} ({}) is live", c.name, target, c.subsysnqn);
            out.push_back(std::move(f));
            continue;
        }
        f.status = Status::fail;
        f.summary = fmt::format("NVMe-oF controller {} over RDMA to {} ({}) is {}, not live", c.name, target,
                                c.subsysnqn, c.state.empty() ? "in no state sysfs names" : c.state);
        f.why = state ? fmt::format("{}: the controller {}", c.state, state->meaning)
                      : "a state this qpscope does not know: I/O through it may wait or fail";
        f.fix = fmt::format(
            "look at the way to the target {}: `qpscope path {}` (with `qpscope path` serving on the target) says "
            "whether RoCE packets cross both ways; on the target, is nvmet's port still listening "
            "(`rdma resource show cm_id` there: nvmet_rdma LISTEN {})?; the kernel's own words: `dmesg | grep nvme | "
            "qpscope explain --log -`",
            target, traddr, target);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace qps::health
