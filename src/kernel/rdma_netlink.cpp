#include "src/kernel/rdma_netlink.hpp"

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <map>
#include <memory>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "src/error.hpp"

namespace qps::kernel {

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

// Every attribute this file reads, with the type the kernel's nldev_policy
// gives it (drivers/infiniband/core/nldev.c). S32/S64 are checked as U32/U64:
// same size.
constexpr AttrSpec attr_specs[] = {
    {RDMA_NLDEV_ATTR_DEV_INDEX, "DEV_INDEX", MNL_TYPE_U32},
    {RDMA_NLDEV_ATTR_DEV_NAME, "DEV_NAME", MNL_TYPE_NUL_STRING},
    {RDMA_NLDEV_ATTR_PORT_INDEX, "PORT_INDEX", MNL_TYPE_U32},
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

const AttrSpec* find_spec(std::uint16_t type)
{
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

[[noreturn]] void malformed(const std::string& what)
{
    throw OperationError("malformed RDMA netlink reply: " + what);
}

// Calls f(attr, type) for each attribute in [payload, payload + len), after
// checking that its header and length fit in what is left of the range and,
// for the attributes of attr_specs, that its payload is valid for its type.
// Unknown attributes are passed on unvalidated (callers ignore them).
// Throws when the attributes do not tile the range.
void for_each_attr(const void* payload, std::size_t len, const char* where,
                   const std::function<void(const nlattr*, std::uint16_t)>& f)
{
    const char* const begin = static_cast<const char*>(payload);
    std::size_t off = 0;
    while (off < len) {
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
        f(attr, type);
        off += MNL_ALIGN(attr->nla_len);  // may step past len by the last attribute's padding
    }
}

void for_each_nested(const nlattr* nest, const char* where,
                     const std::function<void(const nlattr*, std::uint16_t)>& f)
{
    for_each_attr(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), where, f);
}

void for_each_message_attr(const nlmsghdr* nlh, std::uint16_t expected_type, const char* what,
                           const std::function<void(const nlattr*, std::uint16_t)>& f)
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

constexpr std::uint16_t nldev_type(std::uint16_t cmd)
{
    return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

// ---- the QP entry ---------------------------------------------------------

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

// ---- the socket -----------------------------------------------------------

struct CloseMnl {
    void operator()(mnl_socket* s) const noexcept { mnl_socket_close(s); }
};

// Callers copy errno before building the call's name (allocation may change it).
[[noreturn]] void fail(const std::string& call, int err)
{
    throw SystemError(call, err, err == EPROTONOSUPPORT || err == EPERM ? no_netlink_hint : "");
}

// One NETLINK_RDMA socket; dump() sends a request with a fresh sequence number
// and feeds every reply message to a callback until NLMSG_DONE.
class RdmaNetlink {
public:
    RdmaNetlink()
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

    // `what` names the request in errors, e.g. "RDMA_NLDEV_CMD_RES_QP_GET dump (rxe0)".
    // `stat_res`: RDMA_NLDEV_ATTR_STAT_RES for RDMA_NLDEV_CMD_STAT_GET.
    void dump(std::uint16_t cmd, std::optional<std::uint32_t> dev_index, const std::string& what,
              const std::function<void(const nlmsghdr*)>& on_message,
              std::optional<std::uint32_t> stat_res = std::nullopt)
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

private:
    void receive_until_done(std::uint32_t seq, const std::string& what,
                            const std::function<void(const nlmsghdr*)>& on_message)
    {
        const std::string call = "recvmsg(NETLINK_RDMA, " + what + ")";
        for (int n = 0; n < max_datagrams_per_dump; ++n) {
            const ssize_t got = mnl_socket_recvfrom(sock_.get(), buf_.data(), buf_.size());
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
            const auto* nlh = reinterpret_cast<const nlmsghdr*>(buf_.data());
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

    std::unique_ptr<mnl_socket, CloseMnl> sock_;
    std::uint32_t portid_ = 0;
    std::uint32_t seq_ = 0;
    std::vector<char> buf_ = std::vector<char>(recv_buffer_size);
};

struct Device {
    std::uint32_t index;
    std::string name;
};

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

// /proc/PID/comm without its newline; empty when the process is gone.
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

// A __kernel_sockaddr_storage as the kernel puts it: "addr:port", "" when
// the family is unset or unknown.
// Every RDMA device (RDMA_NLDEV_CMD_GET dump).
std::vector<Device> list_devices(RdmaNetlink& nl)
{
    std::vector<Device> devices;
    nl.dump(RDMA_NLDEV_CMD_GET, std::nullopt, "RDMA_NLDEV_CMD_GET dump",
            [&](const nlmsghdr* nlh) { devices.push_back(parse_dev_message(nlh)); });
    return devices;
}

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
        case RDMA_NLDEV_ATTR_RES_PID: c.pid = mnl_attr_get_u32(a); break;
        case RDMA_NLDEV_ATTR_RES_KERN_NAME: c.comm = mnl_attr_get_str(a); break;
        default: break;
        }
    });
    return c;
}

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

std::vector<KernelCmId> list_cm_ids()
{
    RdmaNetlink nl;
    const std::vector<Device> devices = list_devices(nl);
    std::vector<KernelCmId> ids;
    for (const Device& dev : devices)
        nl.dump(RDMA_NLDEV_CMD_RES_CM_ID_GET, dev.index, "RDMA_NLDEV_CMD_RES_CM_ID_GET dump (" + dev.name + ")",
                [&](const nlmsghdr* nlh) { parse_res_cm_id_message(nlh, ids); });
    name_owners(ids);
    return ids;
}

std::string cm_state_name(std::uint8_t state)
{
    static constexpr std::array<std::string_view, 11> names{
        "IDLE",    "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",    "ROUTE_RESOLVED", "CONNECT",
        "DISCONNECT", "ADDR_BOUND", "LISTEN",    "DEVICE_REMOVAL", "DESTROYING"};
    return state < names.size() ? std::string(names[state]) : fmt::format("UNKNOWN({})", state);
}

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

}  // namespace qps::kernel
