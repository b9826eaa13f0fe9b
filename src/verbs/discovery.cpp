#include "src/verbs/discovery.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <net/if.h>

#include "src/config.hpp"
#include "src/error.hpp"
#include "src/host/checks.hpp"
#include "src/util/suggest.hpp"
#include "src/verbs/handles.hpp"

namespace qps::verbs {

namespace {

constexpr const char* no_device_hint =
    "no RDMA device found: load your NIC's RDMA driver, or create a Soft-RoCE device "
    "(modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0), "
    "or run qpscope inside the lab (lab/qpscope-lab qpscope ports)";

std::string ifname(std::uint32_t ifindex)
{
    if (ifindex == 0)
        return {};
    char buf[IF_NAMESIZE] = {};
    if (!if_indextoname(ifindex, buf))
        return fmt::format("ifindex {}", ifindex);
    return buf;
}

void read_gids(ibv_context* ctx, PortSnapshot& port)
{
    for (int i = 0; i < port.attr.gid_tbl_len; ++i) {
        GidRow row;
        row.index = static_cast<std::uint32_t>(i);
        // ibv_query_gid_ex returns the error code (and sets errno on some
        // versions); ENODATA means the entry is empty.
        int rc = ibv_query_gid_ex(ctx, port.port_num, row.index, &row.entry, 0);
        if (rc != 0) {
            row.err = rc > 0 ? rc : errno;
            if (row.err == ENODATA) {
                ++port.gid_empty;
                continue;
            }
        } else {
            row.netdev = ifname(row.entry.ndev_ifindex);
        }
        port.gids.push_back(std::move(row));
    }
}

void read_pkeys(ibv_context* ctx, PortSnapshot& port)
{
    for (int i = 0; i < port.attr.pkey_tbl_len; ++i) {
        __be16 pkey = 0;
        if (ibv_query_pkey(ctx, static_cast<std::uint8_t>(port.port_num), i, &pkey) != 0) {
            port.pkey_errors.push_back(fmt::format("index {}: {}", i, errno_name(errno)));
            continue;
        }
        const std::uint16_t host = be16toh(pkey);
        if (host != 0)
            port.pkeys.push_back(PkeyRow{static_cast<std::uint16_t>(i), host});
    }
}

PortSnapshot read_port(ibv_context* ctx, const std::string& dev, std::uint32_t num, Detail detail)
{
    PortSnapshot port;
    port.port_num = num;
    if (int rc = ibv_query_port(ctx, static_cast<std::uint8_t>(num), &port.attr); rc != 0)
        throw SystemError(fmt::format("ibv_query_port({}, {})", dev, num), rc > 0 ? rc : errno);
#if QPSCOPE_HAVE_ACTIVE_SPEED_EX
    port.active_speed_ex = port.attr.active_speed_ex;
#endif
    if (detail != Detail::counters) {
        read_gids(ctx, port);
        read_pkeys(ctx, port);
    }
    port.counters = kernel::read_port_counters(dev, num, "counters");
    port.hw_counters = kernel::read_port_counters(dev, num, "hw_counters");
    return port;
}

// Why ibv_open_device failed: the device file's access when that is the
// cause (libibverbs reports it as ENOENT or EACCES), else the errno.
[[noreturn]] void throw_open_failure(const std::string& name, const std::string& uverbs, int err)
{
    const Finding f =
        host::check_device_file(name, host::read_device_file("/dev/infiniband/" + uverbs));
    if (f.failed())
        throw OperationError(fmt::format("cannot open {}: {}", name, error_line(f)));
    throw SystemError(fmt::format("ibv_open_device({})", name), err);
}

// Reads a device through a context already open on it.
DeviceSnapshot read_opened(ibv_context* ctx, const std::string& name, const std::string& uverbs,
                           const Filter& filter, Detail detail)
{
    DeviceSnapshot d;
    d.name = name;
    d.uverbs = uverbs;
    d.node_type = ctx->device->node_type;
    d.transport = ctx->device->transport_type;
    d.num_comp_vectors = ctx->num_comp_vectors;

    if (ibv_query_device_ex(ctx, nullptr, &d.attr) == 0) {
        d.attr_ex = true;
    } else if (int rc = ibv_query_device(ctx, &d.attr.orig_attr); rc != 0) {
        throw SystemError(fmt::format("ibv_query_device({})", d.name), rc > 0 ? rc : errno);
    }

    if (detail == Detail::full)
        d.max_inline_rc = probe_max_inline(ctx);

    const std::uint32_t nports = d.attr.orig_attr.phys_port_cnt;
    if (filter.port && (*filter.port < 1 || *filter.port > nports))
        throw UsageError(fmt::format("device {} has no port {}: its ports are 1..{}", d.name,
                                     *filter.port, nports));
    for (std::uint32_t p = 1; p <= nports; ++p)
        if (!filter.port || *filter.port == p)
            d.ports.push_back(read_port(ctx, d.name, p, detail));
    return d;
}

DeviceSnapshot read_device(ibv_device* device, const Filter& filter, Detail detail)
{
    const std::string name = ibv_get_device_name(device);
    Context ctx(ibv_open_device(device));
    if (!ctx)
        throw_open_failure(name, device->dev_name, errno);
    return read_opened(ctx.get(), name, device->dev_name, filter, detail);
}

}  // namespace

std::string unknown_device_message(std::string_view name, const std::vector<std::string>& names)
{
    return util::unknown_name_message("device", name, names, "devices on this host are");
}

std::string no_device_message() { return no_device_hint; }

namespace {

DeviceList device_list(int& n)
{
    DeviceList list(ibv_get_device_list(&n));
    if (!list) {
        if (errno == ENOSYS)
            throw OperationError(no_device_hint);
        throw SystemError("ibv_get_device_list", errno,
                          "is the ib_uverbs module loaded and /dev/infiniband present?");
    }
    if (n == 0)
        throw OperationError(no_device_hint);
    return list;
}

}  // namespace

std::vector<ListedDevice> list_devices()
{
    int n = 0;
    DeviceList list = device_list(n);
    std::vector<ListedDevice> out;
    for (int i = 0; i < n; ++i)
        out.push_back({ibv_get_device_name(list.get()[i]), list.get()[i]->dev_name});
    return out;
}

ListedDevice resolve_device(const std::string& name)
{
    const auto devices = list_devices();
    std::vector<std::string> names;
    for (const auto& d : devices) {
        if (name.empty() || d.name == name)
            return d;
        names.push_back(d.name);
    }
    throw UsageError(unknown_device_message(name, names));
}

std::optional<std::uint32_t> kernel_index(const OpenDevice& device)
{
    const int index = ibv_get_device_index(device.ctx->device);
    if (index < 0)
        return std::nullopt;
    return static_cast<std::uint32_t>(index);
}

OpenDevice open_device(const std::string& name)
{
    int n = 0;
    DeviceList list = device_list(n);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        ibv_device* dev = list.get()[i];
        names.emplace_back(ibv_get_device_name(dev));
        if (!name.empty() && names.back() != name)
            continue;
        Context ctx(ibv_open_device(dev));
        if (const int err = errno; !ctx)
            throw_open_failure(names.back(), dev->dev_name, err);
        return OpenDevice{names.back(), dev->dev_name, std::move(ctx)};
    }
    throw UsageError(unknown_device_message(name, names));
}

SharedDevice open_shared_device(const std::string& name)
{
    return std::make_shared<const OpenDevice>(open_device(name));
}

DeviceSnapshot snapshot_device(const OpenDevice& device, std::optional<std::uint32_t> port, Detail detail)
{
    return read_opened(device.ctx.get(), device.name, device.uverbs, Filter{device.name, port}, detail);
}

std::vector<DeviceSnapshot> snapshot_devices(const Filter& filter, Detail detail)
{
    int n = 0;
    DeviceList list = device_list(n);

    std::vector<std::string> names;
    for (int i = 0; i < n; ++i)
        names.emplace_back(ibv_get_device_name(list.get()[i]));
    if (!filter.device.empty() &&
        std::find(names.begin(), names.end(), filter.device) == names.end())
        throw UsageError(unknown_device_message(filter.device, names));

    std::vector<DeviceSnapshot> out;
    for (int i = 0; i < n; ++i)
        if (filter.device.empty() || names[i] == filter.device)
            out.push_back(read_device(list.get()[i], filter, detail));
    return out;
}

}  // namespace qps::verbs
