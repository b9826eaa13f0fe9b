#include "src/report/kernel_qp.hpp"

#include <algorithm>

#include "src/decode/cm_state.hpp"
#include "src/decode/qp.hpp"

namespace qps::report {

namespace {

// "192.0.2.2:4420" -> {"192.0.2.2", "4420"}; "[fe80::1]:4791" -> {"fe80::1", "4791"}.
std::pair<std::string, std::string> host_and_port(const std::string& address)
{
    const std::size_t colon = address.rfind(':');
    if (colon == std::string::npos)
        return {address, ""};
    std::string host = address.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return {host, address.substr(colon + 1)};
}

}  // namespace

std::optional<QpConsumer> qp_consumer(const kernel::KernelQp& q, const std::vector<kernel::KernelCmId>& ids,
                                      const std::vector<kernel::NvmeController>& controllers)
{
    const auto id = std::find_if(ids.begin(), ids.end(), [&](const kernel::KernelCmId& c) {
        return c.lqpn == q.lqpn && c.dev_name == q.dev_name;
    });
    if (id == ids.end())
        return std::nullopt;
    QpConsumer c;
    c.owner = id->comm;
    c.local = id->src;
    c.remote = id->dst;
    c.cm_state = decode::cm_state(id->state);
    const auto [host, port] = host_and_port(id->dst);
    std::vector<const kernel::NvmeController*> found;
    for (const auto& n : controllers) {
        const auto field = [&](const char* key) {
            const auto it = n.address_fields.find(key);
            return it == n.address_fields.end() ? std::string() : it->second;
        };
        if (n.transport == "rdma" && !host.empty() && field("traddr") == host && field("trsvcid") == port)
            found.push_back(&n);
    }
    for (const auto* n : found)
        c.serves += (c.serves.empty() ? "" : ", ") + n->name;
    if (!found.empty()) {
        c.serves_state = found.front()->state;
        c.serves_target = found.front()->subsysnqn;
    }
    return c;
}

KernelQpReport kernel_qp_report(const kernel::KernelQp& q, bool held)
{
    KernelQpReport r;
    r.device = q.dev_name;
    if (q.port != 0)
        r.port = q.port;
    r.qpn = q.lqpn;
    r.type = decode::kernel_qp_type(q.type);
    r.state = decode::qp_state(q.state);
    r.dest_qpn = q.rqpn;
    r.sq_psn = q.sq_psn;
    r.rq_psn = q.rq_psn;
    r.pdn = q.pdn;
    r.pid = q.pid;
    if (q.path_mig_state)
        r.mig_state = decode::mig_state(*q.path_mig_state);
    r.comm = q.comm;
    r.driver = q.driver;
    r.held = held;
    return r;
}

}  // namespace qps::report
