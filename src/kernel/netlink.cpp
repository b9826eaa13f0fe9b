#include "src/kernel/netlink.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "src/error.hpp"
#include "src/kernel/rdma_netlink.hpp"

namespace qps::kernel::nl {

namespace {

// RDMA_NLDEV_ATTR_DRIVER_DETAILS (u8): kernels from 6.7 hide driver-internal
// resources from dumps unless it is set; Debian 12's uapi headers (6.1) do not
// name it yet and older kernels ignore attributes they do not know.
constexpr std::uint16_t attr_driver_details = 97;

constexpr int recv_timeout_seconds = 5;
// The kernel never builds a dump datagram larger than 32 KiB.
constexpr std::size_t recv_buffer_size = 64 * 1024;
// ~300 QPs fit in a datagram, so this allows ~20 million QPs per dump.
constexpr int max_datagrams_per_dump = 1 << 16;

constexpr const char* no_netlink_hint = "kernel without RDMA netlink support?";

// ---- attribute validation -------------------------------------------------

struct AttrSpec {
    std::uint16_t type;
    const char* name;
    mnl_attr_data_type kind;
};

// Every attribute the dumps read (res_qp, res_cm_id, stat_qp), with the type the kernel's nldev_policy
// gives it (drivers/infiniband/core/nldev.c). S32/S64 are checked as U32/U64:
// same size.
constexpr AttrSpec attr_specs[] = {
    {RDMA_NLDEV_ATTR_DEV_INDEX, "DEV_INDEX", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_DEV_NAME, "DEV_NAME", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_PORT_INDEX, "PORT_INDEX", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_NDEV_INDEX, "NDEV_INDEX", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_NDEV_NAME, "NDEV_NAME", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_RES_QP, "RES_QP", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_RES_QP_ENTRY, "RES_QP_ENTRY", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_RES_LQPN, "RES_LQPN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_RQPN, "RES_RQPN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_RQ_PSN, "RES_RQ_PSN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_SQ_PSN, "RES_SQ_PSN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, "RES_PATH_MIG_STATE", MNL_TYPE_U8},
    {RDMA_NLDEV_ATTR_RES_TYPE, "RES_TYPE", MNL_TYPE_U8},
    {RDMA_NLDEV_ATTR_RES_STATE, "RES_STATE", MNL_TYPE_U8},
    {RDMA_NLDEV_ATTR_RES_PID, "RES_PID", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_KERN_NAME, "RES_KERN_NAME", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_RES_PDN, "RES_PDN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_DRIVER, "DRIVER", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_DRIVER_STRING, "DRIVER_STRING", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, "DRIVER_PRINT_TYPE", MNL_TYPE_U8},
    {RDMA_NLDEV_ATTR_DRIVER_S32, "DRIVER_S32", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_DRIVER_U32, "DRIVER_U32", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_DRIVER_S64, "DRIVER_S64", MNL_TYPE_U64},
    {RDMA_NLDEV_ATTR_DRIVER_U64, "DRIVER_U64", MNL_TYPE_U64},
    {RDMA_NLDEV_ATTR_RES_CM_ID, "RES_CM_ID", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, "RES_CM_ID_ENTRY", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_RES_PS, "RES_PS", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_RES_CM_IDN, "RES_CM_IDN", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_STAT_MODE, "STAT_MODE", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_STAT_RES, "STAT_RES", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_STAT_COUNTER, "STAT_COUNTER", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY, "STAT_COUNTER_ENTRY", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_STAT_COUNTER_ID, "STAT_COUNTER_ID", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, "STAT_HWCOUNTERS", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, "STAT_HWCOUNTER_ENTRY", MNL_TYPE_NESTED},
    {RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "STAT_HWCOUNTER_ENTRY_NAME", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, "STAT_HWCOUNTER_ENTRY_VALUE", MNL_TYPE_U64},
};

// attr_specs by type, so that an attribute's check is one look-up (a dump
// of tens of thousands of QPs has a dozen attributes each): index + 1 into
// attr_specs, 0 for a type it does not list.
constexpr std::size_t spec_slots = 256;
constexpr std::array<std::uint8_t, spec_slots> spec_slot_table = [] {
    std::array<std::uint8_t, spec_slots> t{};
    for (std::size_t i = 0; i < std::size(attr_specs); ++i)
        if (attr_specs[i].type < spec_slots && t[attr_specs[i].type] == 0)
            t[attr_specs[i].type] = static_cast<std::uint8_t>(i + 1);
    return t;
}();
static_assert(std::size(attr_specs) < 255);

const AttrSpec* find_spec(std::uint16_t type)
{
    if (type < spec_slots) {
        const std::uint8_t slot = spec_slot_table[type];
        return slot == 0 ? nullptr : &attr_specs[slot - 1];
    }
    for (const auto& s : attr_specs)
        if (s.type == type)
            return &s;
    return nullptr;
}

const char* kind_name(mnl_attr_data_type kind)
{
    switch (kind) {
    case MNL_TYPE_U8: return "u8 (1 byte)";
    case MNL_TYPE_U32: return "u32 (4 bytes)";
    case MNL_TYPE_U64: return "u64 (8 bytes)";
    case MNL_TYPE_NUL_STRING: return "NUL-terminated string";
    case MNL_TYPE_NESTED: return "nested table";
    default: return "attribute";
    }
}

// Callers copy errno before building the call's name (allocation may change it).
[[noreturn]] void fail(const std::string& call, int err)
{
    throw SystemError(call, err, err == EPROTONOSUPPORT || err == EPERM ? no_netlink_hint : "");
}

}  // namespace

[[noreturn]] void malformed(const std::string& what)
{
    throw OperationError("malformed RDMA netlink reply: " + what);
}

std::uint16_t checked_attr(const char* begin, std::size_t off, std::size_t len, const char* where)
{
    const std::size_t left = len - off;
    const auto* attr = reinterpret_cast<const nlattr*>(begin + off);
    if (left < sizeof(nlattr))
        malformed(fmt::format("{}: {} stray byte(s) at offset {}", where, left, off));
    if (attr->nla_len < sizeof(nlattr) || attr->nla_len > left)
        malformed(fmt::format("{}: attribute {} at offset {} claims {} bytes, {} left", where,
                              mnl_attr_get_type(attr), off, attr->nla_len, left));
    const std::uint16_t type = mnl_attr_get_type(attr);
    if (const AttrSpec* spec = find_spec(type); spec && mnl_attr_validate(attr, spec->kind) < 0)
        malformed(fmt::format("{}: RDMA_NLDEV_ATTR_{} has a {}-byte payload, not a valid {}", where,
                              spec->name, mnl_attr_get_payload_len(attr), kind_name(spec->kind)));
    return type;
}

void for_each_message_attr(const nlmsghdr* nlh, std::uint16_t expected_type, const char* what, const AttrFn& f)
{
    if (nlh == nullptr)
        malformed(fmt::format("{}: no message", what));
    if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN)
        malformed(fmt::format("{}: message length {} is shorter than its header", what, nlh->nlmsg_len));
    if (nlh->nlmsg_type != expected_type)
        malformed(fmt::format("{}: message type {:#x}, expected {:#x}", what, nlh->nlmsg_type,
                              expected_type));
    for_each_attr(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh), what, f);
}

RdmaNetlink::RdmaNetlink() : buf_(new char[recv_buffer_size])
{
    sock_.reset(mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC));
    if (int err = errno; !sock_)
        fail("socket(AF_NETLINK, NETLINK_RDMA)", err);
    if (mnl_socket_bind(sock_.get(), 0, MNL_SOCKET_AUTOPID) < 0) {
        const int err = errno;
        fail("bind(NETLINK_RDMA)", err);
    }
    const timeval tv{recv_timeout_seconds, 0};
    if (::setsockopt(mnl_socket_get_fd(sock_.get()), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0) {
        const int err = errno;
        fail("setsockopt(NETLINK_RDMA, SO_RCVTIMEO)", err);
    }
    portid_ = mnl_socket_get_portid(sock_.get());
    seq_ = static_cast<std::uint32_t>(std::time(nullptr));
}

void RdmaNetlink::dump(std::uint16_t cmd, std::optional<std::uint32_t> dev_index, const std::string& what,
                       const std::function<void(const nlmsghdr*)>& on_message,
                       std::optional<std::uint32_t> stat_res)
{
    alignas(nlmsghdr) char req[256];
    nlmsghdr* nlh = mnl_nlmsg_put_header(req);
    nlh->nlmsg_type = nldev_type(cmd);
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = ++seq_;
    if (dev_index)
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, *dev_index);
    if (cmd == RDMA_NLDEV_CMD_RES_QP_GET)
        mnl_attr_put_u8(nlh, attr_driver_details, 1);  // driver-internal QPs too
    if (stat_res)
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, *stat_res);
    if (mnl_socket_sendto(sock_.get(), nlh, nlh->nlmsg_len) < 0) {
        const int err = errno;
        fail("sendto(NETLINK_RDMA, " + what + ")", err);
    }
    receive_until_done(nlh->nlmsg_seq, what, on_message);
}

void RdmaNetlink::receive_until_done(std::uint32_t seq, const std::string& what,
                                     const std::function<void(const nlmsghdr*)>& on_message)
{
    const std::string call = "recvmsg(NETLINK_RDMA, " + what + ")";
    for (int n = 0; n < max_datagrams_per_dump; ++n) {
        const ssize_t got = mnl_socket_recvfrom(sock_.get(), buf_.get(), recv_buffer_size);
        if (got < 0) {
            const int err = errno;
            if (err == EINTR)
                continue;
            if (err == EAGAIN || err == EWOULDBLOCK)
                throw SystemError(call, ETIMEDOUT,
                                  fmt::format("the kernel did not finish the reply within {} s",
                                              recv_timeout_seconds));
            fail(call, err);  // ENOSPC: a datagram larger than our buffer
        }
        int left = static_cast<int>(got);
        const auto* nlh = reinterpret_cast<const nlmsghdr*>(buf_.get());
        for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
            if (nlh->nlmsg_seq != seq)
                malformed(fmt::format("{}: sequence number {}, expected {}", what, nlh->nlmsg_seq, seq));
            if (nlh->nlmsg_pid != portid_)
                malformed(fmt::format("{}: addressed to port id {}, we are {}", what, nlh->nlmsg_pid,
                                      portid_));
            switch (nlh->nlmsg_type) {
            case NLMSG_NOOP: break;
            case NLMSG_OVERRUN: malformed(what + ": the kernel reports an overrun");
            case NLMSG_ERROR: {
                nlmsgerr e{};
                if (mnl_nlmsg_get_payload_len(nlh) < sizeof e)
                    malformed(what + ": truncated NLMSG_ERROR");
                std::memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof e);
                if (e.error == 0)
                    break;  // an acknowledgement: nothing to report
                fail(what, -e.error);
            }
            case NLMSG_DONE: {
                // A dump that failed part-way puts its negative errno here.
                int status = 0;
                if (mnl_nlmsg_get_payload_len(nlh) >= sizeof status)
                    std::memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof status);
                if (status < 0)
                    fail(what, -status);
                return;
            }
            default: on_message(nlh);
            }
        }
        if (left > 0)
            malformed(fmt::format("{}: datagram ends in {} byte(s) that are not a whole message", what,
                                  left));
    }
    throw OperationError(fmt::format("RDMA netlink {}: no NLMSG_DONE after {} datagrams", what,
                                     max_datagrams_per_dump));
}

namespace {

Device parse_dev_message(const nlmsghdr* nlh)
{
    std::optional<std::uint32_t> index;
    std::optional<std::string> name;
    for_each_message_attr(nlh, nldev_type(RDMA_NLDEV_CMD_GET), "device message",
                          [&](const nlattr* a, std::uint16_t t) {
                              if (t == RDMA_NLDEV_ATTR_DEV_INDEX)
                                  index = mnl_attr_get_u32(a);
                              else if (t == RDMA_NLDEV_ATTR_DEV_NAME)
                                  name = mnl_attr_get_str(a);
                          });
    if (!index || !name)
        malformed("a device message without RDMA_NLDEV_ATTR_DEV_INDEX or DEV_NAME");
    return {*index, std::move(*name)};
}

}  // namespace

std::string process_name(std::uint32_t pid)
{
    const std::string path = fmt::format("/proc/{}/comm", pid);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    char buf[64];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (n <= 0)
        return {};
    std::string s(buf, static_cast<std::size_t>(n));
    while (!s.empty() && (s.back() == '\n' || s.back() == '\0'))
        s.pop_back();
    return s;
}

std::string port_netdev(const std::string& device, std::uint32_t port)
{
    try {
        for (const RdmaLink& l : list_rdma_links())
            if (l.dev_name == device && l.port == port)
                return l.netdev;
    } catch (const std::exception&) {
        // No netlink here, or a reply we cannot read: the port has no netdev we can name.
    }
    return {};
}

std::vector<Device> list_devices(RdmaNetlink& nl)
{
    std::vector<Device> devices;
    nl.dump(RDMA_NLDEV_CMD_GET, std::nullopt, "RDMA_NLDEV_CMD_GET dump",
            [&](const nlmsghdr* nlh) { devices.push_back(parse_dev_message(nlh)); });
    return devices;
}

}  // namespace qps::kernel::nl

namespace qps::kernel {

std::vector<RdmaLink> list_rdma_links()
{
    nl::RdmaNetlink nl;
    std::vector<RdmaLink> links;
    for (const nl::Device& d : nl::list_devices(nl)) {
        std::vector<RdmaLink> ports;
        try {
            nl.dump(RDMA_NLDEV_CMD_PORT_GET, d.index, "RDMA_NLDEV_CMD_PORT_GET dump (" + d.name + ")",
                    [&](const nlmsghdr* nlh) {
                        RdmaLink l{d.index, d.name, 0, {}, std::nullopt};
                        bool has_port = false;
                        nl::for_each_message_attr(nlh, nl::nldev_type(RDMA_NLDEV_CMD_PORT_GET), "port message",
                                                  [&](const nlattr* a, std::uint16_t t) {
                                                      if (t == RDMA_NLDEV_ATTR_PORT_INDEX) {
                                                          l.port = mnl_attr_get_u32(a);
                                                          has_port = true;
                                                      } else if (t == RDMA_NLDEV_ATTR_NDEV_NAME) {
                                                          l.netdev = mnl_attr_get_str(a);
                                                      } else if (t == RDMA_NLDEV_ATTR_NDEV_INDEX) {
                                                          l.netdev_index = mnl_attr_get_u32(a);
                                                      }
                                                  });
                        if (!has_port)
                            nl::malformed("a port message without RDMA_NLDEV_ATTR_PORT_INDEX");
                        ports.push_back(std::move(l));
                    });
        } catch (const SystemError& e) {
            // The device left after the device list (the kernel finds no device of that
            // index: EINVAL, or ENODEV): it is not on the host now.
            if (e.err != ENODEV && e.err != EINVAL)
                throw;
            continue;
        }
        links.insert(links.end(), std::make_move_iterator(ports.begin()), std::make_move_iterator(ports.end()));
    }
    return links;
}

}  // namespace qps::kernel
