#include "src/host/checks.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/decode/device.hpp"
#include "src/decode/port.hpp"

namespace qps::host {

namespace {

std::string user_name(uid_t uid)
{
    if (const passwd* pw = ::getpwuid(uid))
        return pw->pw_name;
    return std::to_string(uid);
}

std::string group_name(gid_t gid)
{
    if (const group* gr = ::getgrgid(gid))
        return gr->gr_name;
    return std::to_string(gid);
}

bool in_group(gid_t gid)
{
    if (::getegid() == gid)
        return true;
    std::vector<gid_t> groups(static_cast<std::size_t>(std::max(::getgroups(0, nullptr), 0)));
    const int n = ::getgroups(static_cast<int>(groups.size()), groups.data());
    return std::find(groups.begin(), groups.begin() + std::max(n, 0), gid) != groups.begin() + std::max(n, 0);
}

std::string bytes_text(std::uint64_t b)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0)
        return fmt::format("{} GiB", b >> 30);
    if (b >= (1ull << 20) && b % (1ull << 20) == 0)
        return fmt::format("{} MiB", b >> 20);
    if (b >= 1024 && b % 1024 == 0)
        return fmt::format("{} KiB", b >> 10);
    return fmt::format("{} bytes", b);
}

std::string mtu_bytes(int mtu) { return std::to_string(128 << mtu); }

std::string gid_list(const std::vector<GidEntry>& valid)
{
    std::vector<std::string> parts;
    for (const auto& g : valid)
        parts.push_back(fmt::format("{} ({}{}{})", g.index, g.gid, g.type.empty() ? "" : ", ", g.type));
    return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string first_line_of(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// --- the device file ---------------------------------------------------------

DeviceFile read_device_file(const std::string& path)
{
    DeviceFile f;
    f.path = path;
    f.user = user_name(::geteuid());
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return f;
    f.exists = true;
    f.mode = st.st_mode & 07777;
    f.owner = user_name(st.st_uid);
    f.group = group_name(st.st_gid);
    f.user_in_group = in_group(st.st_gid);
    // What opening it read-write would do, without opening it (the device
    // is opened once, by the command): the kernel's permission check for
    // this process's effective ids, as open() makes it (root passes any
    // mode; plain access() would answer for the real uid).
    f.usable = ::faccessat(AT_FDCWD, path.c_str(), R_OK | W_OK, AT_EACCESS) == 0;
    return f;
}

Finding check_device_file(const std::string& device, const DeviceFile& f)
{
    Finding r;
    r.id = "device.access";
    r.device = device;
    r.seen = {{"path", f.path}};
    if (!f.exists) {
        r.status = Status::fail;
        r.summary = fmt::format("{} does not exist", f.path);
        r.why = "verbs reach the device only through its uverbs character device";
        r.fix = "load the user-verbs module (modprobe ib_uverbs) and check udev created /dev/infiniband";
        return r;
    }
    r.seen.push_back({"mode", fmt::format("{:04o}", f.mode)});
    r.seen.push_back({"owner", fmt::format("{}:{}", f.owner, f.group)});
    r.seen.push_back({"user", f.user});
    if (f.usable) {
        r.status = Status::ok;
        r.summary = fmt::format("{} (mode {:04o} {}:{}) opens read-write for {}", f.path, f.mode, f.owner, f.group,
                                f.user);
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{} (mode {:04o} {}:{}) cannot be opened read-write by {}", f.path, f.mode, f.owner,
                            f.group, f.user);
    r.why = "without it this user can open no verbs context on " + device + ": every RDMA program fails";
    const bool group_rw = (f.mode & 0060) == 0060;
    if (group_rw && !f.user_in_group && f.group != "root")
        r.fix = fmt::format("add the user to the file's group: usermod -aG {} {} (then log in again)", f.group,
                            f.user);
    else if (group_rw && f.user_in_group)
        r.fix = "the group grants access but this process does not have it yet: log in again (or newgrp " + f.group +
                ")";
    else
        r.fix = fmt::format("give access as rdma-core does by default (udev rule KERNEL==\"uverbs*\", "
                            "MODE=\"0666\"): chmod 0666 {}, or restrict it to a group: chgrp rdma {}; chmod 0660 "
                            "{}; usermod -aG rdma {}",
                            f.path, f.path, f.path, f.user);
    return r;
}

// --- processes holding a device ------------------------------------------------

DeviceUsers read_device_users(const std::string& path, const std::string& proc)
{
    DeviceUsers out;
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(proc, ec)) {
        const std::string name = entry.path().filename();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::error_code fd_ec;
        fs::directory_iterator fds(entry.path() / "fd", fd_ec);
        if (fd_ec) {
            if (fd_ec != std::errc::no_such_file_or_directory)
                out.complete = false;
            continue;
        }
        for (const auto& fd : fds) {
            std::error_code link_ec;
            if (fs::read_symlink(fd.path(), link_ec) == path && !link_ec) {
                std::ifstream comm(entry.path() / "comm");
                DeviceUser u;
                u.pid = static_cast<std::uint32_t>(std::stoul(name));
                std::getline(comm, u.comm);
                out.users.push_back(u);
                break;
            }
        }
    }
    std::sort(out.users.begin(), out.users.end(),
              [](const DeviceUser& a, const DeviceUser& b) { return a.pid < b.pid; });
    return out;
}

Finding check_device_users(const std::string& device, const std::string& path, const DeviceUsers& u)
{
    Finding r;
    r.id = "device.users";
    r.device = device;
    r.status = Status::ok;
    std::vector<std::string> names;
    for (const auto& p : u.users)
        names.push_back(fmt::format("{} ({})", p.pid, p.comm));
    r.seen = {{"path", path}, {"processes", names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))}};
    if (!u.complete)
        r.seen.push_back({"note", "other users' processes are not visible without root"});
    r.summary = fmt::format("{} is open in {}{}", path,
                            names.empty() ? std::string("no process")
                                          : fmt::format("{} process{}: {}", names.size(),
                                                        names.size() == 1 ? "" : "es", fmt::join(names, ", ")),
                            u.complete ? "" : " (only this user's processes are visible: run as root to see all)");
    return r;
}

// --- locked memory -----------------------------------------------------------

Memlock read_memlock()
{
    Memlock m;
    rlimit rl{};
    if (::getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        m.unlimited = rl.rlim_cur == RLIM_INFINITY;
        m.hard_unlimited = rl.rlim_max == RLIM_INFINITY;
        m.soft_bytes = m.unlimited ? 0 : rl.rlim_cur;
        m.hard_bytes = m.hard_unlimited ? 0 : rl.rlim_max;
    }
    // CapEff bit 14 (CAP_IPC_LOCK) lifts the limit for registrations.
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("CapEff:", 0) == 0) {
            const std::uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
            m.cap_ipc_lock = (caps >> 14) & 1;
        }
    return m;
}

Finding check_memlock(const Memlock& m, std::uint64_t needed, const std::string& what)
{
    Finding r;
    r.id = "memlock";
    const std::string limit = m.unlimited ? "unlimited" : bytes_text(m.soft_bytes);
    r.seen = {{"ulimit_l", m.unlimited ? "unlimited" : std::to_string(m.soft_bytes / 1024)},
              {"needed_bytes", std::to_string(needed)},
              {"cap_ipc_lock", m.cap_ipc_lock ? "yes" : "no"}};
    if (m.unlimited || m.cap_ipc_lock || m.soft_bytes >= needed) {
        r.status = Status::ok;
        r.summary = fmt::format("locked-memory limit {}{} covers {} ({})", limit,
                                m.cap_ipc_lock && !m.unlimited ? " (CAP_IPC_LOCK: not enforced)" : "",
                                what, bytes_text(needed));
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("locked-memory limit (ulimit -l) is {} KiB, {} need {} KiB", m.soft_bytes / 1024, what,
                            (needed + 1023) / 1024);
    r.why = "every registered memory region is pinned and counted against RLIMIT_MEMLOCK; ibv_reg_mr fails with "
            "ENOMEM above it";
    if (m.hard_unlimited || m.hard_bytes >= needed)
        r.fix = fmt::format("raise it in this shell (ulimit -l {}), and for good in /etc/security/limits.conf "
                            "('* soft memlock unlimited'; systemd services: LimitMEMLOCK=infinity)",
                            m.hard_unlimited ? "unlimited" : std::to_string(m.hard_bytes / 1024));
    else
        r.fix = "the hard limit is too low as well: set '* hard memlock unlimited' and '* soft memlock unlimited' in "
                "/etc/security/limits.conf (systemd services: LimitMEMLOCK=infinity; Slurm: "
                "PropagateResourceLimitsExcept=MEMLOCK) and log in again";
    return r;
}

// --- CPU -----------------------------------------------------------------------

std::vector<int> allowed_cpus()
{
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set))
                out.push_back(c);
    return out;
}

std::string cpu_list_text(const std::vector<int>& cpus)
{
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        parts.push_back(j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
        i = j + 1;
    }
    return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ","));
}

Finding check_cpu(int cpu, const std::vector<int>& allowed, Given what)
{
    Finding r;
    r.id = "cpu";
    r.cause = Cause::option;
    r.seen = {{"cpu", std::to_string(cpu)}, {"allowed", cpu_list_text(allowed)}};
    if (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end()) {
        r.status = Status::ok;
        r.summary = fmt::format("CPU {} is one this process may run on ({})", cpu, cpu_list_text(allowed));
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{} {}: this process may run on CPUs {} only", given(what), cpu, cpu_list_text(allowed));
    r.why = "the test pins its polling thread to that CPU";
    r.fix = fmt::format("choose one of {} (the affinity comes from taskset, cgroups or the job's allocation)",
                        cpu_list_text(allowed));
    return r;
}

// --- a port ----------------------------------------------------------------------

Finding check_port_state(const PortState& p)
{
    Finding r;
    r.id = "port.state";
    r.device = p.device;
    r.port = p.port;
    const auto state = decode::port_state(p.state);
    const auto phys = decode::phys_state(p.phys_state);
    const std::string state_name = state.name ? *state.name : "?";
    const std::string phys_name = phys.name ? *phys.name : "?";
    r.seen = {{"state", fmt::format("{} ({})", state_name, p.state)},
              {"phys_state", fmt::format("{} ({})", phys_name, p.phys_state)}};
    if (!p.netdev.empty())
        r.seen.push_back({"netdev", fmt::format("{} ({})", p.netdev, p.netdev_operstate)});
    const std::string where = fmt::format("{} port {}", p.device, p.port);
    if (p.state == 4 /* IBV_PORT_ACTIVE */) {
        r.status = Status::ok;
        r.summary = fmt::format("{} is ACTIVE, physical state {}", where, phys_name);
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{} is {} (physical state {}){}", where, state_name, phys_name,
                            p.netdev.empty() ? "" : fmt::format(", netdev {} is {}", p.netdev, p.netdev_operstate));
    r.why = "a port that is not ACTIVE carries no RDMA traffic: every connection over it fails";
    if (p.ethernet) {
        if (!p.netdev.empty() && p.netdev_operstate != "up")
            r.fix = fmt::format("bring the netdev up: ip link set {} up (then check its cable or peer: "
                                "ip link show {})",
                                p.netdev, p.netdev);
        else
            r.fix = "check the Ethernet link of the port's netdev (ip link show; ethtool for the carrier)";
    } else if (p.phys_state == 5 /* LinkUp */) {
        r.fix = "the link is up but no subnet manager has configured the port: start one (opensm) or check the "
                "fabric's SM (sminfo)";
    } else if (p.phys_state == 3 /* Disabled */) {
        r.fix = fmt::format("the port is disabled: enable it (ibportstate -C {} -P {} <lid> {} enable) or check "
                            "the switch port",
                            p.device, p.port, p.port);
    } else {
        r.fix = "no physical link: check the cable, the transceiver and that the switch port is enabled";
    }
    return r;
}

Finding check_xrc(const std::string& device, std::uint64_t device_cap_flags)
{
    Finding r;
    r.id = "device.xrc";
    r.device = device;
    r.seen = {{"device_cap_flags", fmt::format("{:#x}", device_cap_flags)}};
    if (decode::has_xrc(device_cap_flags)) {
        r.status = Status::ok;
        r.summary = fmt::format("{} has XRC (device_cap_flags bit 20)", device);
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("--transport xrc: {}", decode::no_xrc_text(device));
    r.why = "XRC QPs (the sender's XRC_SEND into the receiver's XRC_RECV and its XRC SRQ) exist only on a device "
            "whose device_cap_flags has XRC";
    r.fix = fmt::format("run --transport xrc on a device that has it (-d; 'qpscope ports -v' shows each device's "
                        "capability flags), or rc on {}",
                        device);
    return r;
}

Finding check_connect_transport(const std::string& device, std::uint32_t port, int transport, ConnectWith with)
{
    Finding r;
    r.id = "device.transport";
    r.device = device;
    r.port = port;
    const auto decoded = decode::transport(transport);
    const std::string name = decoded.name ? *decoded.name : "?";
    r.seen = {{"transport", fmt::format("{} ({})", name, transport)}};
    const std::string where = fmt::format("{} port {} (transport: {})", device, port, name);
    const std::string_view through = decode::connects_only_through(transport);
    if (through.empty()) {
        r.status = Status::ok;
        r.summary = where + ": QPs connect with ibv_modify_qp";
        return r;
    }
    if (with.ud) {
        r.status = Status::fail;
        r.summary = fmt::format("{}: {} has {}: path and --transport ud need UD QPs", where, name,
                                decode::cm_only_carries(transport));
        r.why = fmt::format("path probes the path with UD messages, and --transport ud makes UD QPs; an {} device "
                            "makes none",
                            name);
        r.fix = fmt::format("run path or --transport ud on an InfiniBand or RoCE device (-d; 'qpscope ports' shows "
                            "each device's transport); on {} run ping-pong or bw with --cm",
                            device);
        return r;
    }
    if (with.cm) {
        r.status = Status::ok;
        r.summary = fmt::format("{}: QPs connect through {} (--cm)", where, through);
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{}: {} QPs connect only through {}: give --cm on both sides", where, name, through);
    r.why = fmt::format("without --cm, ping-pong, bw, qpscope-mesh, qp create --pair (or --to rtr/rts) and doctor's "
                        "loopback move their QPs to RTR and RTS with ibv_modify_qp and the peer's address; {} QPs are "
                        "connected by the kernel's connection manager, which {} drives",
                        name, through);
    r.fix = fmt::format("give --cm on both sides (ping-pong, bw, qpscope-mesh; doctor --cm for the loopback), or "
                        "choose an InfiniBand or RoCE device with -d ('qpscope ports' shows each device's "
                        "transport); 'qp create --pair' and '--to rtr/rts' cannot connect {} QPs",
                        name);
    return r;
}

Finding check_gid_index(const std::string& device, std::uint32_t port, std::optional<std::uint32_t> wanted,
                        const std::vector<GidEntry>& valid, std::uint32_t table_len, bool ethernet)
{
    Finding r;
    r.id = "port.gid";
    r.device = device;
    r.port = port;
    r.seen = {{"valid_indices", gid_list(valid)}, {"table_length", std::to_string(table_len)}};
    const std::string where = fmt::format("{} port {}", device, port);
    if (wanted) {
        r.cause = Cause::option;
        r.seen.push_back({"gid_index", std::to_string(*wanted)});
        const auto it = std::find_if(valid.begin(), valid.end(), [&](const GidEntry& g) { return g.index == *wanted; });
        if (it != valid.end()) {
            r.status = Status::ok;
            r.summary = fmt::format("GID index {} of {} is {} ({})", *wanted, where, it->gid, it->type);
            return r;
        }
        r.status = Status::fail;
        r.summary = *wanted >= table_len
                        ? fmt::format("{} {} is out of range: {} has a GID table of {} entries; valid "
                                      "indices: {}",
                                      given(Given::gid_index), *wanted, where, table_len, gid_list(valid))
                        : fmt::format("{} {}: entry {} of {} is empty; valid indices: {}", given(Given::gid_index),
                                      *wanted, *wanted, where, gid_list(valid));
        r.why = "the GID index picks the source address of every packet; an empty entry cannot be used";
        r.fix = valid.empty() ? "the table is empty: give the netdev an IP address (ip addr add ADDR/LEN dev NETDEV)"
                              : fmt::format("use one of the valid indices, or leave {} out and qpscope picks one",
                                            given(Given::gid_index));
        return r;
    }
    if (!valid.empty() || !ethernet) {
        r.status = Status::ok;
        r.summary = fmt::format("{} has {} usable GID{}", where, valid.size(), valid.size() == 1 ? "" : "s");
        return r;
    }
    r.status = Status::fail;
    r.summary = fmt::format("{} is RoCE but its GID table holds no GID", where);
    r.why = "RoCE addresses every packet by GID; without one no connection can be made";
    r.fix = "give the port's netdev an IP address (ip addr add ADDR/LEN dev NETDEV) and bring it up";
    return r;
}

Finding check_mtu(const std::string& device, std::uint32_t port, int wanted, int active, int max)
{
    Finding r;
    r.id = "port.mtu";
    r.device = device;
    r.port = port;
    r.cause = Cause::option;
    r.seen = {{"mtu", mtu_bytes(wanted)}, {"active_mtu", mtu_bytes(active)}, {"max_mtu", mtu_bytes(max)}};
    const std::string where = fmt::format("{} port {}", device, port);
    if (wanted <= active) {
        r.status = Status::ok;
        r.summary = fmt::format("{} {} fits {}'s active MTU of {} bytes", given(Given::mtu), mtu_bytes(wanted), where,
                                mtu_bytes(active));
        return r;
    }
    std::vector<std::string> ok;
    for (int m = 1; m <= active; ++m)
        ok.push_back(mtu_bytes(m));
    r.status = Status::fail;
    r.summary = fmt::format("{} {} is above {}'s active MTU of {} bytes; valid: {}", given(Given::mtu),
                            mtu_bytes(wanted), where, mtu_bytes(active), fmt::join(ok, ", "));
    r.why = "a QP's path MTU may not exceed the port's active MTU: the modify to RTR would be refused";
    r.fix = wanted <= max ? "choose a valid MTU, or raise the link's MTU (RoCE: the netdev MTU; 'qpscope doctor' "
                            "says which)"
                          : "choose a valid MTU";
    return r;
}

std::uint32_t roce_header_allowance(const std::string& driver) { return driver == "rxe" ? 80 : 96; }

std::uint32_t netdev_mtu_for(std::uint32_t rdma_mtu_bytes, const std::string& driver)
{
    return rdma_mtu_bytes + roce_header_allowance(driver);
}

}  // namespace qps::host
