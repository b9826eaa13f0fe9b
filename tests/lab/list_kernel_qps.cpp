// Test-only: prints qps::kernel::list_kernel_qps() as a JSON array, one object
// per QP, for tests/lab/netlink_qp.sh to compare with `rdma -j resource show qp`.
// Optional fields are absent when the kernel did not send them.
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>

#include "src/kernel/rdma_netlink.hpp"
#include "src/util/json_text.hpp"

int main()
{
    try {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& q : qps::kernel::list_kernel_qps()) {
            nlohmann::json j{{"ifindex", q.dev_index}, {"ifname", q.dev_name}, {"port", q.port},
                             {"lqpn", q.lqpn},         {"type", q.type},        {"state", q.state},
                             {"comm", q.comm}};
            if (q.rqpn)
                j["rqpn"] = *q.rqpn;
            if (q.path_mig_state)
                j["path_mig_state"] = *q.path_mig_state;
            if (q.sq_psn)
                j["sq_psn"] = *q.sq_psn;
            if (q.rq_psn)
                j["rq_psn"] = *q.rq_psn;
            if (q.pdn)
                j["pdn"] = *q.pdn;
            if (q.pid)
                j["pid"] = *q.pid;
            nlohmann::json drv = nlohmann::json::array();
            for (const auto& [k, v] : q.driver)
                drv.push_back({k, v});
            j["driver"] = drv;
            out.push_back(std::move(j));
        }
        std::puts(qps::util::json_text(out, 2).c_str());  // a process name may be any bytes
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "list_kernel_qps: %s\n", e.what());
        return 1;
    }
}
