// The RDMA netlink socket and attribute walker that every object's dump
// shares (res_qp.cpp, res_cm_id.cpp, stat_qp.cpp), the way iproute2's rdma/
// keeps one file per object over utils.c. Internal to src/kernel/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <libmnl/libmnl.h>
#include <map>
#include <memory>
#include <optional>
#include <rdma/rdma_netlink.h>
#include <string>
#include <utility>
#include <vector>

namespace qps::kernel::nl {

// OperationError("malformed RDMA netlink reply: " + what).
[[noreturn]] void malformed(const std::string& what);

using AttrFn = std::function<void(const nlattr*, std::uint16_t)>;

// Checks the attribute at `off` of the `len` bytes at `begin`: that its
// header and length fit in what is left of the range and, for the
// attributes of attr_specs, that its payload is valid for its type.
// Returns its type; throws (malformed) when it does not fit.
std::uint16_t checked_attr(const char* begin, std::size_t off, std::size_t len, const char* where);

// Calls f(attr, type) for each attribute in [payload, payload + len), each
// checked by checked_attr(). Unknown attributes are passed on unvalidated
// (callers ignore them). Throws when the attributes do not tile the range.
// A template, so that a dump of tens of thousands of QPs (a dozen
// attributes each) calls its callers' lambdas inline.
template <class F>
void for_each_attr(const void* payload, std::size_t len, const char* where, F&& f)
{
    const char* const begin = static_cast<const char*>(payload);
    for (std::size_t off = 0; off < len;) {
        const auto* attr = reinterpret_cast<const nlattr*>(begin + off);
        const std::uint16_t type = checked_attr(begin, off, len, where);
        f(attr, type);
        off += MNL_ALIGN(attr->nla_len);  // may step past len by the last attribute's padding
    }
}
template <class F>
void for_each_nested(const nlattr* nest, const char* where, F&& f)
{
    for_each_attr(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), where, std::forward<F>(f));
}
// The attributes of one message, after checking its header and type.
void for_each_message_attr(const nlmsghdr* nlh, std::uint16_t expected_type, const char* what, const AttrFn& f);

constexpr std::uint16_t nldev_type(std::uint16_t cmd)
{
    return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

struct CloseMnl {
    void operator()(mnl_socket* s) const noexcept { mnl_socket_close(s); }
};

// One NETLINK_RDMA socket; dump() sends a request with a fresh sequence number
// and feeds every reply message to a callback until NLMSG_DONE.
class RdmaNetlink {
public:
    RdmaNetlink();

    // `what` names the request in errors, e.g. "RDMA_NLDEV_CMD_RES_QP_GET dump (rxe0)".
    // `stat_res`: RDMA_NLDEV_ATTR_STAT_RES for RDMA_NLDEV_CMD_STAT_GET.
    void dump(std::uint16_t cmd, std::optional<std::uint32_t> dev_index, const std::string& what,
              const std::function<void(const nlmsghdr*)>& on_message,
              std::optional<std::uint32_t> stat_res = std::nullopt);

private:
    void receive_until_done(std::uint32_t seq, const std::string& what,
                            const std::function<void(const nlmsghdr*)>& on_message);

    std::unique_ptr<mnl_socket, CloseMnl> sock_;
    std::uint32_t portid_ = 0;
    std::uint32_t seq_ = 0;
    std::unique_ptr<char[]> buf_;  // recv_buffer_size bytes, not zeroed: each receive fills what it reads
};

struct Device {
    std::uint32_t index;
    std::string name;
};

// Every RDMA device (RDMA_NLDEV_CMD_GET dump).
std::vector<Device> list_devices(RdmaNetlink& nl);

// The netdev the kernel ties to a port (RDMA_NLDEV_CMD_PORT_GET's NDEV_NAME,
// as `rdma link show` prints it): an iWARP port's, which sysfs gid_attrs
// does not name (its GIDs carry no netdev). "" when it has none or the
// kernel cannot say.
std::string port_netdev(const std::string& device, std::uint32_t port);

// /proc/PID/comm without its newline; empty when the process is gone.
std::string process_name(std::uint32_t pid);

// Fills `comm` of the resources that carry only a pid, once per pid.
template <class Resource>
void name_owners(std::vector<Resource>& resources)
{
    std::map<std::uint32_t, std::string> names;
    for (Resource& r : resources)
        if (r.pid && r.comm.empty()) {
            auto [it, fresh] = names.try_emplace(*r.pid);
            if (fresh)
                it->second = process_name(*r.pid);
            r.comm = it->second;
        }
}

}  // namespace qps::kernel::nl
