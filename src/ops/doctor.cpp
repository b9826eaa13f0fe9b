#include "src/ops/doctor.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <fstream>
#include <map>
#include <algorithm>
#include <thread>
#include <tuple>

#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/health/counter_checks.hpp"
#include "src/health/kernel_checks.hpp"
#include "src/health/preflight.hpp"
#include "src/health/stuck.hpp"
#include "src/host/checks.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/ops/bw.hpp"
#include "src/ops/loopback.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::health {

namespace {

namespace fs = std::filesystem;

// The kernel driver behind an RDMA device: the PCI driver's name, or the
// software device's (rxe has a `parent` netdev and no PCI device).
std::string device_driver(const std::string& device)
{
    const fs::path base = fs::path("/sys/class/infiniband") / device;
    std::error_code ec;
    const fs::path driver = fs::read_symlink(base / "device" / "driver", ec);
    if (!ec)
        return driver.filename();
    if (device.rfind("rxe", 0) == 0 || fs::exists(base / "parent", ec))
        return "rxe";
    if (device.rfind("siw", 0) == 0)
        return "siw";
    return "";
}

Finding skipped(std::string id, const std::string& device, std::optional<std::uint32_t> port, std::string why)
{
    Finding f;
    f.id = std::move(id);
    f.status = Status::skipped;
    f.device = device;
    f.port = port;
    f.summary = std::move(why);
    return f;
}

LinkFacts link_facts(const std::string& device, const verbs::PortSnapshot& p, const std::string& netdev)
{
    LinkFacts l;
    l.device = device;
    l.port = p.port_num;
    const auto w = decode::width(p.attr.active_width);
    const int speed_raw = p.active_speed_ex ? static_cast<int>(p.active_speed_ex) : p.attr.active_speed;
    const auto s = decode::speed(speed_raw);
    l.width = w.known && w.name ? *w.name : "";
    l.speed = s.known && s.name ? *s.name : "";
    if (const auto rate = decode::link_rate(p.attr.active_width, speed_raw))
        l.rate_gbps = rate->gbps;
    l.active_mtu = 128u << p.attr.active_mtu;
    l.max_mtu = 128u << p.attr.max_mtu;
    l.ethernet = p.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    l.netdev = netdev;
    return l;
}

std::uint32_t netdev_mtu(const std::string& netdev)
{
    const std::string text = netdev.empty() ? "" : first_line_of("/sys/class/net/" + netdev + "/mtu");
    try {
        return text.empty() ? 0 : static_cast<std::uint32_t>(std::stoul(text));
    } catch (const std::exception&) {
        return 0;
    }
}

struct PortPlan {
    std::string device;
    std::string driver;
    verbs::PortSnapshot snap;
    bool active = false;
    int transport = 0;  // the device's ibv_transport_type
    verbs::SharedDevice opened;  // the device as the snapshot opened it, for the self-test
    std::string netdev;          // the port's, "" when none
};

// Where the loopback's rdma_cm listens and connects: the IPv4 address of
// the port's RoCE v2 GID, else the first address of its netdev (IPv4
// first); "" when it has none.
std::string cm_loopback_address(const verbs::PortSnapshot& p, const std::string& netdev)
{
    for (const auto& row : p.gids)
        if (row.err == 0 && row.entry.gid_type == IBV_GID_TYPE_ROCE_V2) {
            decode::GidBytes gid{};
            std::memcpy(gid.data(), row.entry.gid.raw, gid.size());
            if (auto v4 = decode::gid_ipv4(gid))
                return *v4;
        }
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

// The P_Key index the knobs ask for, against the port's table as read.
std::optional<std::string> loopback_pkey_problem(const std::string& device, const verbs::PortSnapshot& p,
                                                 std::uint16_t index)
{
    if (index == 0)
        return std::nullopt;
    std::vector<decode::PkeyEntry> entries;
    bool read = false;
    for (const auto& row : p.pkeys) {
        entries.push_back({row.index, row.pkey});
        read = read || row.index == index;
    }
    if (!read && index < p.attr.pkey_tbl_len)
        entries.push_back({index, 0});  // the snapshot keeps non-zero entries only: this one is empty
    return decode::pkey_index_problem(device, p.port_num, p.attr.pkey_tbl_len, entries, index);
}

// The knobs that differ from a default QP's, for the finding: "traffic
// class 104, SL 3"; "" when none does.
std::string knobs_text(const verbs::QpKnobs& k)
{
    const verbs::QpKnobs d;
    const std::tuple<const char*, unsigned, unsigned> rows[] = {
        {"traffic class", k.traffic_class, d.traffic_class}, {"SL", k.sl, d.sl},
        {"flow label", k.flow_label, d.flow_label},          {"P_Key index", k.pkey_index, d.pkey_index},
        {"ACK timeout code", k.ack_timeout, d.ack_timeout},  {"retry count", k.retry_cnt, d.retry_cnt},
        {"RNR retry", k.rnr_retry, d.rnr_retry},             {"RNR timer code", k.min_rnr_timer, d.min_rnr_timer}};
    std::vector<std::string> parts;
    for (const auto& [name, value, default_value] : rows)
        if (value != default_value)
            parts.push_back(fmt::format("{} {}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

// `rdma_cm`: the host's device.rdma_cm finding, which explains a --cm
// self-test that could not reach rdma_cm at all.
Finding loopback_finding(const PortPlan& pp, bool ethernet, const Finding* roce_gid, const Finding* rdma_cm,
                         const DoctorOptions& o)
{
    const std::string& device = pp.device;
    const std::uint32_t port = pp.snap.port_num;
    perf::LoopbackSpec spec;
    spec.device = device;
    spec.opened = pp.opened;
    spec.port = port;
    spec.bandwidth = o.loopback_bw;
    spec.knobs = o.knobs;
    spec.cm = o.loopback_cm;
    if (spec.cm)
        spec.cm_address = cm_loopback_address(pp.snap, pp.netdev);
    const std::string connection = spec.cm ? fmt::format("rdma_cm ({})", spec.cm_address) : "manual";
    const std::string knobs = knobs_text(o.knobs);
    if (auto problem = loopback_pkey_problem(device, pp.snap, o.knobs.pkey_index)) {
        Finding f = loopback_failure(device, port, *problem, "", 0, ethernet, roce_gid);
        f.why = "the P_Key index asked for is not one of this port's: a QP on it cannot be made or reaches nobody";
        f.fix = "give an index of the table ('qpscope ports -v' lists it), or have the SM add the partition";
        return f;
    }
    const perf::LoopbackResult r = perf::run_loopback(spec);
    Finding f;
    f.id = "port.loopback";
    f.device = device;
    f.port = port;
    f.seen = {{"round_trips", std::to_string(r.round_trips)},
              {"gid_index", std::to_string(r.gid_index)},
              {"connection", connection}};
    if (!r.gid.empty())
        f.seen.push_back({"gid", r.gid});
    if (!knobs.empty())
        f.seen.push_back({"knobs", knobs});
    const std::string where = fmt::format("{} port {}", device, port);
    if (!r.ok) {
        Finding failed = loopback_failure(device, port, r.error, r.failed_call, r.err, ethernet, roce_gid);
        failed.seen.insert(failed.seen.begin(), f.seen.begin(), f.seen.end());
        // rdma_cm's own device file, not the NIC: device.rdma_cm says which and the fix.
        if (spec.cm && r.failed_call == "rdma_create_event_channel" && rdma_cm && rdma_cm->status != Status::ok) {
            failed.why = "the self-test connects through rdma_cm (--cm), and this user cannot open rdma_cm's device "
                         "file: see device.rdma_cm; the port itself is not judged";
            failed.fix = rdma_cm->fix;
        }
        return failed;
    }
    f.status = Status::ok;
    f.seen.push_back({"latency_p50_us", fmt::format("{:.2f}", r.latency_p50_us)});
    f.summary = fmt::format("loopback self-test on {}: {} RC send round trips{}, median one-way {:.2f} µs", where,
                            r.round_trips,
                            spec.cm ? fmt::format(" connected by rdma_cm to {}", spec.cm_address) : "",
                            r.latency_p50_us);
    if (!knobs.empty())
        f.summary += fmt::format(" ({})", knobs);
    if (!o.loopback_bw)
        return f;
    if (!r.write_gbps) {
        f.status = Status::fail;
        f.seen.push_back({"bandwidth_error", r.bandwidth_error});
        f.summary += fmt::format("; the write bandwidth run failed: {}", r.bandwidth_error);
        f.why = "messages pass but a stream of RDMA writes does not complete";
        f.fix = "look at dmesg and the port's counters (retries, sequence errors)";
        return f;
    }
    f.seen.push_back({"write_gbps", fmt::format("{:.2f}", *r.write_gbps)});
    f.summary += fmt::format("; RDMA write 64 KiB: {:.2f} Gb/s", *r.write_gbps);
    if (o.expect.loopback_gbps && *r.write_gbps < *o.expect.loopback_gbps) {
        f.status = Status::fail;
        f.summary += fmt::format(", below the expected {:g} Gb/s", *o.expect.loopback_gbps);
        f.why = "the NIC moves less through its own loopback than the site expects: the limit is inside this "
                "host (PCIe link, NUMA placement, firmware, CPU frequency), not the fabric";
        f.fix = "check the NIC's PCIe link (lspci -vv: LnkSta against LnkCap), its NUMA node against the CPU, "
                "and the CPU frequency governor";
    }
    return f;
}

// /dev/infiniband/rdma_cm: what rdma_cm users (MPI, NCCL, NVMe-oF, rping)
// open to resolve addresses and connect. Its absence or a refusal is a
// warning: verbs work without it.
Finding check_rdma_cm_file(const DeviceFile& file)
{
    Finding f = check_device_file("", file);
    f.id = "device.rdma_cm";
    if (f.status != Status::fail)
        return f;
    f.status = Status::warn;
    if (!file.exists) {
        f.why = "programs that connect through rdma_cm (MPI, NCCL, NVMe-oF, rping) cannot run; plain verbs can";
        f.fix = "load the module: modprobe rdma_ucm";
    } else {
        f.why = "this user cannot use rdma_cm (MPI, NCCL, NVMe-oF, rping connect through it); plain verbs can";
    }
    return f;
}


// Per-QP counters, or nullopt (with why) when the kernel refused the dump.
std::optional<std::vector<kernel::QpCounter>> read_qp_counters(std::string& error)
{
    try {
        return kernel::list_qp_counters().counters;
    } catch (const std::exception& e) {
        error = e.what();
        return std::nullopt;
    }
}

// o.progress, when the caller wants a line before a slow step.
void doctor_progress(const DoctorOptions& o, const std::string& what)
{
    if (o.progress)
        o.progress(what);
}

// The kernel modules and the devices found; the devices to check (none:
// the finding says why and what to load).
std::vector<verbs::ListedDevice> check_kernel_and_devices(const DoctorOptions& o, std::vector<Finding>& out)
{
    const auto loaded = [](const std::string& m) { return module_is_loaded(m); };
    out.push_back(check_kernel_modules(loaded));
    std::vector<verbs::ListedDevice> listed;
    try {
        listed = verbs::list_devices();
    } catch (const OperationError&) {
        // None: the finding below says why and what to load.
    }
    std::vector<std::string> names;
    for (const auto& d : listed)
        names.push_back(d.name);
    out.push_back(check_devices_found(names, read_pci_functions(), loaded));
    if (!listed.empty() && !o.device.empty()) {
        const verbs::ListedDevice one = verbs::resolve_device(o.device);
        listed = {one};
    }
    return listed;
}

// Locked memory (the process, whatever the device) and rdma_cm's device file.
void check_memlock_and_rdma_cm(const DoctorOptions& o, std::vector<Finding>& out)
{
    const std::uint64_t needed =
        o.memlock_needed ? o.memlock_needed
                         : verbs::registered_bytes(perf::link_setup(perf::BwOptions{}, perf::BwOptions{}.sizes.front()));
    out.push_back(check_memlock(read_memlock(), needed, "a default qpscope bw test's buffers"));

    out.push_back(check_rdma_cm_file(read_device_file("/dev/infiniband/rdma_cm")));
}

// One port's state, link, GID table and RoCE rules; what the later steps need of it.
PortPlan check_port(const std::string& device, const std::string& driver, int transport,
                    const verbs::PortSnapshot& p, const DoctorOptions& o, std::vector<Finding>& out)
{
    const PortState state = port_state_of(device, p);
    Finding st = check_port_state(state);
    const bool active = st.status == Status::ok;
    out.push_back(std::move(st));
    const LinkFacts link = link_facts(device, p, state.netdev);
    if (active)
        out.push_back(check_link(link, o.expect));
    const auto gids = gid_entries(p);
    out.push_back(check_gid_index(device, p.port_num, std::nullopt, gids,
                                  static_cast<std::uint32_t>(p.attr.gid_tbl_len), state.ethernet));
    // RoCE's GID and MTU rules; an iWARP port is Ethernet too, but
    // its GIDs are not RoCE's and its MTU follows TCP's.
    if (state.ethernet && transport == IBV_TRANSPORT_IB) {
        out.push_back(check_roce_gid(device, p.port_num, gids, state.netdev));
        if (const std::uint32_t mtu = netdev_mtu(state.netdev))
            out.push_back(explain_roce_mtu(link, mtu, driver, o.expect.mtu));
    }
    return {device, driver, p, active, transport, nullptr, state.netdev};
}

// A device's access, who holds it, then its ports (added to `ports`).
void check_device(const verbs::ListedDevice& d, const DoctorOptions& o, std::vector<Finding>& out,
                  std::vector<PortPlan>& ports)
{
    const std::string path = "/dev/infiniband/" + d.uverbs;
    Finding access = check_device_file(d.name, read_device_file(path));
    const bool usable = access.status == Status::ok;
    out.push_back(std::move(access));
    out.push_back(check_device_users(d.name, path, read_device_users(path)));
    if (!usable) {
        out.push_back(skipped("port.state", d.name, std::nullopt,
                              "ports not checked: this user cannot open the device"));
        return;
    }
    // Opened once: the snapshot and the port's self-test use the same context.
    const verbs::SharedDevice opened = verbs::open_shared_device(d.name);
    const verbs::DeviceSnapshot snap = verbs::snapshot_device(*opened, o.port, verbs::Detail::tables);
    const std::string driver = device_driver(d.name);
    for (const auto& p : snap.ports) {
        ports.push_back(check_port(d.name, driver, snap.transport, p, o, out));
        ports.back().opened = opened;
    }
}

// Each port's counters now against its snapshot: those that rose.
void check_port_counters(const std::vector<PortPlan>& ports, const DoctorOptions& o, std::vector<Finding>& out)
{
    for (const auto& pp : ports) {
        for (const char* subdir : {"counters", "hw_counters"}) {
            const kernel::CounterSet& before =
                std::string_view(subdir) == "counters" ? pp.snap.counters : pp.snap.hw_counters;
            const kernel::CounterSet after = kernel::read_port_counters(pp.device, pp.snap.port_num, subdir);
            for (auto& f : rising_counter_findings(pp.device, pp.snap.port_num, before, after, subdir, o.interval_s))
                out.push_back(std::move(f));
        }
    }
}

// Counters read twice, QPs read every 100 ms in between.
void check_counters_and_qps(const std::vector<PortPlan>& ports, const DoctorOptions& o, std::vector<Finding>& out)
{
    doctor_progress(o, fmt::format("reading the counters and QPs for {:g} s", o.interval_s));
    std::vector<std::vector<kernel::KernelQp>> readings;
    std::string qp_error, qp_counter_error;
    const auto qp_counters_before = read_qp_counters(qp_counter_error);
    try {
        readings = read_qps_over(o.interval_s);
    } catch (const std::exception& e) {
        qp_error = e.what();
        std::this_thread::sleep_for(std::chrono::duration<double>(o.interval_s));
    }
    check_port_counters(ports, o, out);
    const auto qp_counters_after = read_qp_counters(qp_counter_error);
    for (const auto& pp : ports) {
        if (qp_counters_before && qp_counters_after)
            for (auto& f : qp_counter_findings(pp.device, pp.snap.port_num, pp.driver, *qp_counters_before,
                                               *qp_counters_after, o.interval_s))
                out.push_back(std::move(f));
        else
            out.push_back(skipped("port.qp_counters", pp.device, pp.snap.port_num,
                                  "per-QP counters not read: " + qp_counter_error));
    }
    if (qp_error.empty())
        for (auto& f : qp_findings(judge_qps(readings, o.interval_s, cm_ids_or_none()), o.interval_s))
            out.push_back(std::move(f));
    else
        out.push_back(skipped("qp.summary", "", std::nullopt, "QPs of other processes not read: " + qp_error));
}

// The self-test, per ACTIVE port whose QPs qpscope can connect.
void run_self_tests(const std::vector<PortPlan>& ports, const DoctorOptions& o, std::vector<Finding>& out)
{
    if (!o.loopback)
        return;
    for (const auto& pp : ports) {
        // iWARP's QPs connect through rdma_cm only: with --cm its loopback runs.
        const bool cm_iwarp = o.loopback_cm && pp.transport == IBV_TRANSPORT_IWARP;
        if (auto refused = loopback_not_connectable(pp.device, pp.snap.port_num, pp.transport); refused && !cm_iwarp) {
            out.push_back(std::move(*refused));
            continue;
        }
        if (!pp.active) {
            out.push_back(skipped("port.loopback", pp.device, pp.snap.port_num, "not run: the port is not ACTIVE"));
            continue;
        }
        doctor_progress(o, fmt::format("loopback self-test on {} port {}", pp.device, pp.snap.port_num));
        const auto roce_gid = std::find_if(out.begin(), out.end(), [&](const Finding& f) {
            return f.id == "port.roce_gid" && f.device == pp.device && f.port == pp.snap.port_num;
        });
        const Finding* gid_finding = roce_gid == out.end() ? nullptr : &*roce_gid;
        const auto rdma_cm =
            std::find_if(out.begin(), out.end(), [](const Finding& f) { return f.id == "device.rdma_cm"; });
        const bool ethernet = pp.snap.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
        Finding lf = loopback_finding(pp, ethernet, gid_finding, rdma_cm == out.end() ? nullptr : &*rdma_cm, o);
        out.push_back(std::move(lf));
    }
}

// Host-wide first, then by device (in the order listed) and port.
void order_findings(std::vector<Finding>& out)
{
    std::map<std::string, std::size_t> rank;
    for (const auto& f : out)
        rank.emplace(f.device, f.device.empty() ? 0 : rank.size() + 1);
    std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
        const auto ka = std::make_pair(rank.at(a.device), a.port.value_or(0));
        const auto kb = std::make_pair(rank.at(b.device), b.port.value_or(0));
        return ka < kb;
    });
}

}  // namespace

DoctorReport run_doctor(const DoctorOptions& o)
{
    DoctorReport report;
    report.interval_s = o.interval_s;
    auto& out = report.findings;

    // 1. The kernel and the devices.
    const std::vector<verbs::ListedDevice> listed = check_kernel_and_devices(o, out);
    if (listed.empty())
        return report;
    // 2. Locked memory, and what rdma_cm users open.
    check_memlock_and_rdma_cm(o, out);
    // 3. Per device: access, who holds it, then its ports.
    std::vector<PortPlan> ports;
    for (const auto& d : listed)
        check_device(d, o, out, ports);
    // 4. Counters read twice, QPs read every 100 ms in between.
    check_counters_and_qps(ports, o, out);
    // 5. The self-test, per ACTIVE port whose QPs qpscope can connect.
    run_self_tests(ports, o, out);

    order_findings(out);
    return report;
}

DoctorCounts count_findings(const DoctorReport& r)
{
    DoctorCounts c;
    for (const auto& f : r.findings) {
        switch (f.status) {
        case Status::ok: ++c.ok; break;
        case Status::warn: ++c.warn; break;
        case Status::fail: ++c.fail; break;
        case Status::skipped: ++c.skipped; break;
        }
    }
    return c;
}

bool counts_against(const Finding& f, bool strict)
{
    return f.status == Status::fail || (strict && f.status == Status::warn);
}

int doctor_exit_code(const DoctorReport& r, bool strict)
{
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return counts_against(f, strict); })
               ? 1
               : 0;
}

}  // namespace qps::health
