// Per-QP counters (`rdma statistic qp show`): RDMA_NLDEV_CMD_STAT_GET with RDMA_NLDEV_ATTR_STAT_RES.
#include "src/kernel/rdma_netlink.hpp"

#include <cerrno>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/kernel/netlink.hpp"

namespace qps::kernel {

using namespace nl;

namespace {

QpCounter parse_counter_entry(const nlattr* entry, const std::string& dev_name)
{
    QpCounter c;
    c.dev_name = dev_name;
    std::optional<std::uint32_t> id;
    for_each_nested(entry, "counter entry", [&](const nlattr* a, std::uint16_t type) {
        switch (type) {
        case RDMA_NLDEV_ATTR_PORT_INDEX: c.port = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_STAT_COUNTER_ID: id = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_STAT_MODE: c.mode = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_PID: c.pid = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_QP:
            for_each_nested(a, "counter QP table", [&](const nlattr* q, std::uint16_t qt) {
                if (qt != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
                    return;
                for_each_nested(q, "counter QP entry", [&](const nlattr* f, std::uint16_t ft) {
                    if (ft == RDMA_NLDEV_ATTR_RES_LQPN)
                        c.qpns.push_back(mnl_attr_get_u32(f));
                });
            });
            break;
        case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
            for_each_nested(a, "counter values", [&](const nlattr* h, std::uint16_t ht) {
                if (ht != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
                    return;
                std::optional<std::string> name;
                std::optional<std::uint64_t> value;
                for_each_nested(h, "counter value", [&](const nlattr* f, std::uint16_t ft) {
                    if (ft == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME)
                        name = mnl_attr_get_str(f);
                    else if (ft == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE)
                        value = mnl_attr_get_u64(f);
                });
                if (!name || !value)
                    malformed("a counter value without STAT_HWCOUNTER_ENTRY_NAME or _VALUE");
                c.values.emplace_back(std::move(*name), *value);
            });
            break;
        default: break;
        }
    });
    if (!id)
        malformed(fmt::format("a counter entry of {} without RDMA_NLDEV_ATTR_STAT_COUNTER_ID", dev_name));
    c.id = *id;
    return c;
}

}  // namespace

void parse_stat_qp_message(const nlmsghdr* nlh, std::vector<QpCounter>& out)
{
    std::optional<std::string> dev_name;
    const nlattr* table = nullptr;
    for_each_message_attr(nlh, nldev_type(RDMA_NLDEV_CMD_STAT_GET), "counter message",
                          [&](const nlattr* a, std::uint16_t type) {
                              if (type == RDMA_NLDEV_ATTR_DEV_NAME)
                                  dev_name = mnl_attr_get_str(a);
                              else if (type == RDMA_NLDEV_ATTR_STAT_COUNTER)
                                  table = a;
                          });
    if (!dev_name)
        malformed("a counter message without RDMA_NLDEV_ATTR_DEV_NAME");
    if (!table)
        return;  // a device without counters
    std::vector<QpCounter> counters;  // appended only when the whole message parsed
    for_each_nested(table, "counter table", [&](const nlattr* a, std::uint16_t type) {
        if (type == RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY)
            counters.push_back(parse_counter_entry(a, *dev_name));
    });
    out.insert(out.end(), std::make_move_iterator(counters.begin()), std::make_move_iterator(counters.end()));
}

QpCounters list_qp_counters()
{
    RdmaNetlink nl;
    const std::vector<Device> devices = list_devices(nl);
    QpCounters out;
    for (const Device& dev : devices) {
        try {
            nl.dump(RDMA_NLDEV_CMD_STAT_GET, dev.index, "RDMA_NLDEV_CMD_STAT_GET QP counters dump (" + dev.name + ")",
                    [&](const nlmsghdr* nlh) { parse_stat_qp_message(nlh, out.counters); }, RDMA_NLDEV_ATTR_RES_QP);
        } catch (const SystemError& e) {
            if (e.err != EOPNOTSUPP && e.err != EINVAL)
                throw;
            out.unsupported.push_back(dev.name);
        }
    }
    return out;
}

}  // namespace qps::kernel
