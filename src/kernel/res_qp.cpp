// Every QP of the host (`rdma resource show qp`): RDMA_NLDEV_CMD_RES_QP_GET.
#include "src/kernel/rdma_netlink.hpp"

#include <fmt/format.h>
#include <optional>
#include <set>

#include "src/error.hpp"
#include "src/kernel/netlink.hpp"

namespace qps::kernel {

using namespace nl;

namespace {

std::string driver_value_text(const nlattr* attr, std::uint16_t type, bool hex)
{
    switch (type) {
    case RDMA_NLDEV_ATTR_DRIVER_STRING:
        return mnl_attr_get_str(attr);
    case RDMA_NLDEV_ATTR_DRIVER_U32:
        return hex ? fmt::format("{:#x}", mnl_attr_get_u32(attr)) : fmt::format("{}", mnl_attr_get_u32(attr));
    case RDMA_NLDEV_ATTR_DRIVER_S32:
        return hex ? fmt::format("{:#x}", mnl_attr_get_u32(attr))
                   : fmt::format("{}", static_cast<std::int32_t>(mnl_attr_get_u32(attr)));
    case RDMA_NLDEV_ATTR_DRIVER_U64:
        return hex ? fmt::format("{:#x}", mnl_attr_get_u64(attr)) : fmt::format("{}", mnl_attr_get_u64(attr));
    case RDMA_NLDEV_ATTR_DRIVER_S64:
        return hex ? fmt::format("{:#x}", mnl_attr_get_u64(attr))
                   : fmt::format("{}", static_cast<std::int64_t>(mnl_attr_get_u64(attr)));
    }
    return {};
}

// The driver table is flat: {DRIVER_STRING key, [DRIVER_PRINT_TYPE], value}
// repeated, where the value is DRIVER_STRING/U32/S32/U64/S64 (see the
// kernel's rdma_nl_put_driver_*). Padding (type 0) may precede a u64.
std::vector<std::pair<std::string, std::string>> parse_driver_table(const nlattr* table)
{
    std::vector<std::pair<std::string, std::string>> out;
    std::optional<std::string> key;
    bool hex = false;
    for_each_nested(table, "driver table", [&](const nlattr* a, std::uint16_t type) {
        switch (type) {
        case RDMA_NLDEV_ATTR_DRIVER_STRING:
            if (!key) {
                key = mnl_attr_get_str(a);
                hex = false;
                return;
            }
            [[fallthrough]];
        case RDMA_NLDEV_ATTR_DRIVER_U32:
        case RDMA_NLDEV_ATTR_DRIVER_S32:
        case RDMA_NLDEV_ATTR_DRIVER_U64:
        case RDMA_NLDEV_ATTR_DRIVER_S64:
            if (!key)
                malformed(fmt::format("driver table: a value (attribute {}) without a key", type));
            out.emplace_back(std::move(*key), driver_value_text(a, type, hex));
            key.reset();
            return;
        case RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE:
            if (!key)
                malformed("driver table: a print type without a key");
            hex = mnl_attr_get_u8(a) == RDMA_NLDEV_PRINT_TYPE_HEX;
            return;
        default:
            return;  // padding, or something newer
        }
    });
    if (key)
        malformed(fmt::format("driver table: key '{}' without a value", *key));
    return out;
}

KernelQp parse_qp_entry(const nlattr* entry, std::uint32_t dev_index, const std::string& dev_name)
{
    KernelQp qp;
    qp.dev_index = dev_index;
    qp.dev_name = dev_name;
    bool have_lqpn = false, have_type = false, have_state = false;
    for_each_nested(entry, "QP entry", [&](const nlattr* a, std::uint16_t type) {
        switch (type) {
        case RDMA_NLDEV_ATTR_PORT_INDEX: qp.port = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_LQPN:
            qp.lqpn = mnl_attr_get_u32(a);
            have_lqpn = true;
            break;
        case RDMA_NLDEV_ATTR_RES_RQPN: qp.rqpn = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_TYPE:
            qp.type = mnl_attr_get_u8(a);
            have_type = true;
            break;
        case RDMA_NLDEV_ATTR_RES_STATE:
            qp.state = mnl_attr_get_u8(a);
            have_state = true;
            break;
        case RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE: qp.path_mig_state = mnl_attr_get_u8(a); break;
        case RDMA_NLDEV_ATTR_RES_SQ_PSN: qp.sq_psn = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_RQ_PSN: qp.rq_psn = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_PDN: qp.pdn = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_PID: qp.pid = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_KERN_NAME: qp.comm = mnl_attr_get_str(a); break;
        case RDMA_NLDEV_ATTR_DRIVER: qp.driver = parse_driver_table(a); break;
        default: break;  // attributes of newer kernels
        }
    });
    const char* missing = !have_lqpn    ? "RES_LQPN"
                          : !have_type  ? "RES_TYPE"
                          : !have_state ? "RES_STATE"
                                        : nullptr;
    if (missing)
        malformed(fmt::format("a QP entry of {} has no RDMA_NLDEV_ATTR_{}", dev_name, missing));
    return qp;
}

}  // namespace

void parse_res_qp_message(const nlmsghdr* nlh, std::vector<KernelQp>& out)
{
    std::optional<std::uint32_t> dev_index;
    std::optional<std::string> dev_name;
    const nlattr* table = nullptr;
    for_each_message_attr(nlh, nldev_type(RDMA_NLDEV_CMD_RES_QP_GET), "QP message",
                          [&](const nlattr* a, std::uint16_t type) {
                              switch (type) {
                              case RDMA_NLDEV_ATTR_DEV_INDEX: dev_index = mnl_attr_get_u32(a); break;
                              case RDMA_NLDEV_ATTR_DEV_NAME: dev_name = mnl_attr_get_str(a); break;
                              case RDMA_NLDEV_ATTR_RES_QP: table = a; break;
                              default: break;
                              }
                          });
    if (!dev_index || !dev_name)
        malformed("a QP message without RDMA_NLDEV_ATTR_DEV_INDEX or DEV_NAME");
    if (!table)
        malformed(fmt::format("a QP message of {} without RDMA_NLDEV_ATTR_RES_QP", *dev_name));

    std::vector<KernelQp> qps;  // appended only when the whole message parsed
    for_each_nested(table, "QP table", [&](const nlattr* a, std::uint16_t type) {
        if (type == RDMA_NLDEV_ATTR_RES_QP_ENTRY)
            qps.push_back(parse_qp_entry(a, *dev_index, *dev_name));
    });
    out.insert(out.end(), std::make_move_iterator(qps.begin()), std::make_move_iterator(qps.end()));
}

std::vector<KernelQp> list_kernel_qps()
{
    RdmaNetlink nl;

    // 1. Every RDMA device: the kernel dumps QPs of one device per request.
    const std::vector<Device> devices = list_devices(nl);

    // 2. Each device's QPs, kernel-owned and user ones alike.
    std::vector<KernelQp> qps;
    for (const Device& dev : devices)
        nl.dump(RDMA_NLDEV_CMD_RES_QP_GET, dev.index, "RDMA_NLDEV_CMD_RES_QP_GET dump (" + dev.name + ")",
                [&](const nlmsghdr* nlh) { parse_res_qp_message(nlh, qps); });

    // 3. User QPs carry only a pid: name the process as `rdma` does.
    name_owners(qps);
    return qps;
}

int confirm_missing(std::vector<KernelQp>& now, const std::vector<KernelQp>& before,
                    const std::function<std::vector<KernelQp>()>& relist, int tries)
{
    const auto key = [](const KernelQp& q) { return std::pair{q.dev_index, q.lqpn}; };
    std::set<std::pair<std::uint32_t, std::uint32_t>> have;
    for (const KernelQp& q : now)
        have.insert(key(q));
    std::set<std::pair<std::uint32_t, std::uint32_t>> missing;
    for (const KernelQp& q : before)
        if (!have.count(key(q)))
            missing.insert(key(q));
    int dumps = 0;
    while (!missing.empty() && dumps < tries) {
        ++dumps;
        for (KernelQp& q : relist()) {
            if (missing.erase(key(q)) == 0)
                continue;  // present already, or new since (the next look sees it)
            now.push_back(std::move(q));
        }
    }
    return dumps;
}

}  // namespace qps::kernel
