#include "src/report/consumer.hpp"

#include "src/decode/cm_state.hpp"

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

struct Found {
    std::string name, state, target;
};

ServedObjects joined(const std::vector<Found>& found)
{
    ServedObjects s;
    for (const auto& f : found)
        s.names += (s.names.empty() ? "" : ", ") + f.name;
    if (!found.empty()) {
        s.state = found.front().state;
        s.target = found.front().target;
    }
    return s;
}

}  // namespace

ConsumerObjects read_consumer_objects()
{
    return {kernel::list_nvme_controllers(), kernel::list_nfs_rdma_mounts(), kernel::list_iscsi_connections()};
}

ServedObjects served_by(const std::string& owner, const std::string& remote, const ConsumerObjects& objects)
{
    const auto [host, port] = host_and_port(remote);
    std::vector<Found> found;
    if (host.empty())
        return {};
    if (owner == "nvme_rdma") {
        for (const auto& n : objects.nvme) {
            const auto field = [&](const char* key) {
                const auto it = n.address_fields.find(key);
                return it == n.address_fields.end() ? std::string() : it->second;
            };
            if (n.transport == "rdma" && field("traddr") == host && field("trsvcid") == port)
                found.push_back({n.name, n.state, n.subsysnqn});
        }
    } else if (owner == "rpcrdma") {
        // A mount is served while it is in the table: the kernel keeps no other state of it.
        for (const auto& m : objects.nfs)
            if (m.addr == host && m.port == port)
                found.push_back({m.mountpoint, "mounted", m.source});
    } else if (owner == "ib_iser") {
        for (const auto& c : objects.iscsi)
            if (c.address == host && c.port == port)
                found.push_back({c.session, c.state, c.targetname});
    }
    return joined(found);
}

ConsumerIndex::ConsumerIndex(const std::vector<kernel::KernelCmId>& ids, ConsumerObjects objects)
    : ConsumerIndex(ids, std::function<ConsumerObjects()>{})
{
    objects_ = std::move(objects);
}

ConsumerIndex::ConsumerIndex(const std::vector<kernel::KernelCmId>& ids, std::function<ConsumerObjects()> read)
    : read_(std::move(read))
{
    for (const auto& c : ids)
        if (c.lqpn)
            by_qp_.emplace(std::pair{c.dev_name, *c.lqpn}, &c);
}

const ConsumerObjects& ConsumerIndex::objects() const
{
    if (!objects_)
        objects_ = read_();
    return *objects_;
}

std::optional<QpConsumer> ConsumerIndex::of(const kernel::KernelQp& q) const
{
    const auto it = by_qp_.find({q.dev_name, q.lqpn});
    if (it == by_qp_.end())
        return std::nullopt;
    const kernel::KernelCmId& id = *it->second;
    QpConsumer c;
    c.owner = id.comm;
    c.local = id.src;
    c.remote = id.dst;
    c.cm_state = decode::cm_state(id.state);
    const ServedObjects s = served_by(id.comm, id.dst, objects());
    c.serves = s.names;
    c.serves_state = s.state;
    c.serves_target = s.target;
    return c;
}

}  // namespace qps::report
