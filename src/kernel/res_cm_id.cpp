// Every rdma_cm ID of the host (`rdma resource show cm_id`): RDMA_NLDEV_CMD_RES_CM_ID_GET.
#include "src/kernel/rdma_netlink.hpp"

#include <arpa/inet.h>
#include <cstring>
#include <fmt/format.h>
#include <sys/socket.h>

#include "src/decode/cm_state.hpp"
#include "src/error.hpp"
#include "src/kernel/netlink.hpp"

namespace qps::kernel {

using namespace nl;

namespace {

// A __kernel_sockaddr_storage as the kernel puts it: "addr:port", "" when
// the family is unset or unknown.
std::string sockaddr_text(const nlattr* a)
{
    const auto len = mnl_attr_get_payload_len(a);
    const auto* p = static_cast<const unsigned char*>(mnl_attr_get_payload(a));
    sa_family_t family = 0;
    if (len >= sizeof family)
        std::memcpy(&family, p, sizeof family);
    char text[INET6_ADDRSTRLEN] = {};
    if (family == AF_INET && len >= sizeof(sockaddr_in)) {
        sockaddr_in in{};
        std::memcpy(&in, p, sizeof in);
        ::inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
        return fmt::format("{}:{}", text, ntohs(in.sin_port));
    }
    if (family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        sockaddr_in6 in6{};
        std::memcpy(&in6, p, sizeof in6);
        ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
        return fmt::format("[{}]:{}", text, ntohs(in6.sin6_port));
    }
    return "";
}

KernelCmId parse_cm_id_entry(const nlattr* entry, const std::string& dev_name)
{
    KernelCmId c;
    c.dev_name = dev_name;
    for_each_nested(entry, "cm_id entry", [&](const nlattr* a, std::uint16_t type) {
        switch (type) {
        case RDMA_NLDEV_ATTR_PORT_INDEX: c.port = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_LQPN: c.lqpn = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_PS: c.port_space = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_STATE: c.state = mnl_attr_get_u8(a); break;
        case RDMA_NLDEV_ATTR_RES_SRC_ADDR: c.src = sockaddr_text(a); break;
        case RDMA_NLDEV_ATTR_RES_DST_ADDR: c.dst = sockaddr_text(a); break;
        case RDMA_NLDEV_ATTR_RES_CM_IDN: c.id = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_PID: c.pid = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_KERN_NAME: c.comm = mnl_attr_get_str(a); break;
        default: break;
        }
    });
    return c;
}

}  // namespace

void parse_res_cm_id_message(const nlmsghdr* nlh, std::vector<KernelCmId>& out)
{
    std::optional<std::string> dev_name;
    const nlattr* table = nullptr;
    for_each_message_attr(nlh, nldev_type(RDMA_NLDEV_CMD_RES_CM_ID_GET), "cm_id message",
                          [&](const nlattr* a, std::uint16_t type) {
                              if (type == RDMA_NLDEV_ATTR_DEV_NAME)
                                  dev_name = mnl_attr_get_str(a);
                              else if (type == RDMA_NLDEV_ATTR_RES_CM_ID)
                                  table = a;
                          });
    if (!dev_name)
        malformed("a cm_id message without RDMA_NLDEV_ATTR_DEV_NAME");
    if (!table)
        return;
    std::vector<KernelCmId> ids;  // appended only when the whole message parsed
    for_each_nested(table, "cm_id table", [&](const nlattr* a, std::uint16_t type) {
        if (type == RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY)
            ids.push_back(parse_cm_id_entry(a, *dev_name));
    });
    out.insert(out.end(), std::make_move_iterator(ids.begin()), std::make_move_iterator(ids.end()));
}

CmIdDump dump_cm_ids()
{
    RdmaNetlink nl;
    const std::vector<Device> devices = list_devices(nl);
    CmIdDump out;
    for (const Device& dev : devices) {
        out.devices.push_back(dev.name);
        nl.dump(RDMA_NLDEV_CMD_RES_CM_ID_GET, dev.index, "RDMA_NLDEV_CMD_RES_CM_ID_GET dump (" + dev.name + ")",
                [&](const nlmsghdr* nlh) { parse_res_cm_id_message(nlh, out.ids); });
    }
    name_owners(out.ids);
    return out;
}

std::vector<KernelCmId> list_cm_ids() { return dump_cm_ids().ids; }

std::string cm_state_name(std::uint8_t state) { return *decode::cm_state(state).name; }

}  // namespace qps::kernel
