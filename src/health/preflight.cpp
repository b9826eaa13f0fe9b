#include "src/health/preflight.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include "src/decode/device.hpp"
#include "src/decode/gid.hpp"
#include "src/error.hpp"
#include "src/kernel/netlink.hpp"
#include "src/verbs/gid_choice.hpp"

namespace qps::health {

std::string port_netdev(const std::string& device, const verbs::PortSnapshot& p)
{
    for (const auto& g : p.gids)
        if (!g.netdev.empty())
            return g.netdev;
    // A RoCE port whose netdev has no address yet has no GID: sysfs still
    // names the netdev of GID 0. An iWARP port's GIDs name none: the
    // kernel's RDMA netlink does (`rdma link show`).
    if (std::string n = host::first_line_of(fmt::format("/sys/class/infiniband/{}/ports/{}/gid_attrs/ndevs/0", device,
                                                   p.port_num));
        !n.empty())
        return n;
    return kernel::nl::port_netdev(device, p.port_num);
}

std::string netdev_address(const std::string& netdev)
{
    if (netdev.empty())
        return "";
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0)
        return "";
    std::string v4, v6;
    for (const ifaddrs* a = list; a; a = a->ifa_next) {
        if (!a->ifa_addr || netdev != a->ifa_name)
            continue;
        char text[INET6_ADDRSTRLEN] = {};
        if (a->ifa_addr->sa_family == AF_INET && v4.empty())
            v4 = ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
        else if (a->ifa_addr->sa_family == AF_INET6 && v6.empty()) {
            const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr);
            if (!IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))  // a link-local one needs a scope rdma_cm is not given
                v6 = ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        }
    }
    ::freeifaddrs(list);
    return v4.empty() ? v6 : v4;
}

std::string netdev_operstate(const std::string& netdev)
{
    return netdev.empty() ? std::string() : host::first_line_of("/sys/class/net/" + netdev + "/operstate");
}

host::PortState port_state_of(const std::string& device, const verbs::PortSnapshot& p)
{
    host::PortState s;
    s.device = device;
    s.port = p.port_num;
    s.state = p.attr.state;
    s.phys_state = p.attr.phys_state;
    s.ethernet = p.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (s.ethernet) {
        s.netdev = port_netdev(device, p);
        s.netdev_operstate = netdev_operstate(s.netdev);
    }
    return s;
}

std::vector<host::GidEntry> gid_entries(const verbs::PortSnapshot& p)
{
    std::vector<host::GidEntry> out;
    for (const auto& g : p.gids) {
        if (g.err != 0)
            continue;
        decode::GidBytes bytes{};
        std::copy(std::begin(g.entry.gid.raw), std::end(g.entry.gid.raw), bytes.begin());
        if (decode::gid_is_zero(bytes))
            continue;
        const auto type = decode::gid_type(static_cast<int>(g.entry.gid_type));
        out.push_back({g.index, decode::format_gid(bytes), type.name ? *type.name : "?", g.netdev,
                       decode::gid_ipv4(bytes).value_or(""), bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80});
    }
    return out;
}

namespace {

std::vector<verbs::GidCandidate> gid_candidates(const verbs::PortSnapshot& p)
{
    std::vector<verbs::GidCandidate> out;
    for (const auto& g : p.gids) {
        if (g.err != 0)
            continue;
        verbs::GidCandidate c{g.index, {}, static_cast<int>(g.entry.gid_type)};
        std::copy(std::begin(g.entry.gid.raw), std::end(g.entry.gid.raw), c.gid.begin());
        if (!decode::gid_is_zero(c.gid))
            out.push_back(c);
    }
    return out;
}

// A device the checks chose, and the context they opened on it (null when
// it has not been opened yet, or could not be read).
struct Chosen {
    verbs::ListedDevice listed;
    verbs::SharedDevice opened;
};

// Without -d: the first device whose port has a GID of one of `kinds` (or
// is not RoCE), passing over a device whose QPs ibv_modify_qp cannot
// connect when `connects`, else the first device (whose check then names
// the fault). A device that cannot be read stops the search there: its own
// checks name why (a device file this user may not open is not passed over
// silently). Each device is opened once; the chosen one stays open.
Chosen device_for(std::uint32_t port, const std::vector<decode::GidKind>& kinds, bool connects, host::ConnectWith with)
{
    for (const auto& d : verbs::list_devices()) {
        try {
            verbs::SharedDevice opened = verbs::open_shared_device(d.name);
            const verbs::DeviceSnapshot snap = verbs::snapshot_device(*opened, port, verbs::Detail::tables);
            if (snap.ports.empty())
                continue;
            if (connects && !decode::connects_only_through(snap.transport).empty() && (!with.cm || with.ud))
                continue;
            if (with.xrc && !decode::has_xrc(snap.attr.orig_attr.device_cap_flags))
                continue;
            const verbs::PortSnapshot& p = snap.ports.front();
            if (p.attr.link_layer != IBV_LINK_LAYER_ETHERNET)
                return {d, opened};
            for (const auto& c : gid_candidates(p))
                if (std::find(kinds.begin(), kinds.end(), decode::gid_kind(c.gid)) != kinds.end())
                    return {d, opened};
        } catch (const std::exception&) {
            return {d, nullptr};
        }
    }
    return {verbs::resolve_device(""), nullptr};
}

// The device `spec` names (or, without -d, the one device_for chooses),
// with the context reused from spec.opened when it is that device.
Chosen resolve(const PreflightSpec& spec, const std::vector<decode::GidKind>& kinds)
{
    if (spec.device.empty() && !kinds.empty()) {
        if (spec.opened)
            return {{spec.opened->name, spec.opened->uverbs}, spec.opened};
        return device_for(spec.port, kinds, spec.connects, spec.with);
    }
    if (spec.opened && (spec.device.empty() || spec.device == spec.opened->name))
        return {{spec.opened->name, spec.opened->uverbs}, spec.opened};
    return {verbs::resolve_device(spec.device), nullptr};
}

}  // namespace

Preflight preflight(const PreflightSpec& spec)
{
    Preflight out;
    std::vector<Finding>& f = out.findings;
    if (spec.destination)
        out.gid_kinds = gid_kinds_for(*spec.destination);
    // 1. The device file, before anything opens it.
    Chosen chosen = resolve(spec, out.gid_kinds);
    const verbs::ListedDevice& dev = chosen.listed;
    out.device = dev.name;
    f.push_back(host::check_device_file(dev.name, host::read_device_file("/dev/infiniband/" + dev.uverbs)));
    throw_first_failure(f);

    // 2. Connected QPs: the device's transport, then the port's state. The
    //    device is opened here once; the test's QPs use this context.
    out.opened = chosen.opened ? chosen.opened : verbs::open_shared_device(dev.name);
    const verbs::DeviceSnapshot snap = verbs::snapshot_device(*out.opened, spec.port, verbs::Detail::tables);
    const verbs::PortSnapshot& port = snap.ports.front();
    const host::PortState state = port_state_of(dev.name, port);
    if (spec.with.xrc) {  // before the transport: an iWARP device has no XRC either, whatever connects it
        f.push_back(host::check_xrc(dev.name, snap.attr.orig_attr.device_cap_flags));
        throw_first_failure(f);
    }
    if (spec.connects) {
        f.push_back(host::check_connect_transport(dev.name, spec.port, snap.transport, spec.with));
        throw_first_failure(f);
        f.push_back(host::check_port_state(state));
        throw_first_failure(f);
    }
    // 3. The GID index, the MTU.
    if (spec.gid_index || spec.connects) {
        f.push_back(host::check_gid_index(dev.name, spec.port, spec.gid_index, gid_entries(port),
                                    static_cast<std::uint32_t>(port.attr.gid_tbl_len), state.ethernet));
        throw_first_failure(f);
    }
    // 4. A client: the source GID against the destination (RoCE addresses by
    //    IP; an iWARP port's GIDs are not addresses: rdma_cm routes by IP).
    if (spec.destination && state.ethernet && decode::connects_only_through(snap.transport).empty()) {
        const verbs::GidChoice choice = verbs::choose_among(gid_candidates(port), spec.gid_index, out.gid_kinds);
        f.push_back(check_gid_kind(dev.name, spec.port, spec.gid_index, gid_entries(port),
                                   choice.found ? std::optional<std::uint32_t>(choice.index) : std::nullopt,
                                   *spec.destination, state.netdev));
        throw_first_failure(f);
    }
    if (spec.mtu) {
        f.push_back(host::check_mtu(dev.name, spec.port, *spec.mtu, port.attr.active_mtu, port.attr.max_mtu));
        throw_first_failure(f);
    }

    // 5. The process: locked memory and the CPU.
    if (spec.memlock_bytes) {
        f.push_back(host::check_memlock(host::read_memlock(), spec.memlock_bytes, spec.memlock_what));
        throw_first_failure(f);
    }
    if (spec.cpu) {
        f.push_back(host::check_cpu(*spec.cpu, host::allowed_cpus()));
        throw_first_failure(f);
    }
    return out;
}

}  // namespace qps::health
