#include "src/ops/doctor.hpp"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <algorithm>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/health/counter_checks.hpp"
#include "src/health/kernel_checks.hpp"
#include "src/health/preflight.hpp"
#include "src/health/storage_checks.hpp"
#include "src/health/stuck.hpp"
#include "src/host/checks.hpp"
#include "src/host/pid_namespace.hpp"
#include "src/kernel/consumers.hpp"
#include "src/kernel/rdma_netlink.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/net/interfaces.hpp"
#include "src/net/interrupt.hpp"
#include "src/ops/bw.hpp"
#include "src/ops/doctor_loopback.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::ops {

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

health::LinkFacts link_facts(const std::string& device, const verbs::PortSnapshot& p, const std::string& netdev)
{
    health::LinkFacts l;
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
    const std::string text = netdev.empty() ? "" : host::first_line_of("/sys/class/net/" + netdev + "/mtu");
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

// /dev/infiniband/rdma_cm: what rdma_cm users (MPI, NCCL, NVMe-oF, rping)
// open to resolve addresses and connect. Its absence or a refusal is a
// warning: verbs work without it.
Finding check_rdma_cm_file(const host::DeviceFile& file)
{
    Finding f = host::check_device_file("", file);
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
    const auto loaded = [](const std::string& m) { return health::module_is_loaded(m); };
    out.push_back(health::check_kernel_modules(loaded));
    std::vector<verbs::ListedDevice> listed;
    try {
        listed = verbs::list_devices();
    } catch (const OperationError&) {
        // None: the finding below says why and what to load.
    }
    std::vector<std::string> names;
    for (const auto& d : listed)
        names.push_back(d.name);
    out.push_back(health::check_devices_found(names, health::read_pci_functions(), loaded));
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
                         : verbs::registered_bytes(
                               perf::link_setup(ops::BwOptions{}, perf::LinkSide{}, ops::BwOptions{}.sizes.front()));
    out.push_back(host::check_memlock(host::read_memlock(), needed, "a default qpscope bw test's buffers"));

    out.push_back(check_rdma_cm_file(host::read_device_file("/dev/infiniband/rdma_cm")));
}

// One port's state, link, GID table and RoCE rules; what the later steps need of it.
PortPlan check_port(const std::string& device, const std::string& driver, int transport,
                    const verbs::PortSnapshot& p, const DoctorOptions& o, std::vector<Finding>& out)
{
    const host::PortState state = health::port_state_of(device, p);
    Finding st = host::check_port_state(state);
    const bool active = st.status == Status::ok;
    out.push_back(std::move(st));
    const health::LinkFacts link = link_facts(device, p, state.netdev);
    if (active)
        out.push_back(health::check_link(link, o.expect));
    const auto gids = health::gid_entries(p);
    out.push_back(host::check_gid_index(device, p.port_num, std::nullopt, gids,
                                  static_cast<std::uint32_t>(p.attr.gid_tbl_len), state.ethernet));
    // RoCE's GID and MTU rules; an iWARP port is Ethernet too, but
    // its GIDs are not RoCE's and its MTU follows TCP's.
    if (state.ethernet && transport == IBV_TRANSPORT_IB) {
        out.push_back(health::check_roce_gid(device, p.port_num, gids, state.netdev));
        if (const std::uint32_t mtu = netdev_mtu(state.netdev))
            out.push_back(health::explain_roce_mtu(link, mtu, driver, o.expect.mtu));
    }
    return {device, driver, p, active, transport, nullptr, state.netdev};
}

// A device's access, who holds it, then its ports (added to `ports`).
void check_device(const verbs::ListedDevice& d, const DoctorOptions& o, std::vector<Finding>& out,
                  std::vector<PortPlan>& ports)
{
    const std::string path = "/dev/infiniband/" + d.uverbs;
    Finding access = host::check_device_file(d.name, host::read_device_file(path));
    const bool usable = access.status == Status::ok;
    out.push_back(std::move(access));
    out.push_back(host::check_device_users(d.name, path, host::read_device_users(path)));
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
void check_port_counters(const std::vector<PortPlan>& ports, double seconds, std::vector<Finding>& out)
{
    for (const auto& pp : ports) {
        for (const char* subdir : {"counters", "hw_counters"}) {
            const kernel::CounterSet& before =
                std::string_view(subdir) == "counters" ? pp.snap.counters : pp.snap.hw_counters;
            const kernel::CounterSet after = kernel::read_port_counters(pp.device, pp.snap.port_num, subdir);
            for (auto& f : health::rising_counter_findings(pp.device, pp.snap.port_num, before, after, subdir, seconds))
                out.push_back(std::move(f));
        }
    }
}

// Counters read twice, QPs read every 100 ms in between. SIGINT/SIGTERM
// end the interval early: what it read until then is judged over the time
// it really spans (report.interval_s), and report.interrupted says so.
void check_counters_and_qps(const std::vector<PortPlan>& ports, const DoctorOptions& o, DoctorReport& report)
{
    auto& out = report.findings;
    doctor_progress(o, fmt::format("reading the counters and QPs for {:g} s", o.interval_s));
    std::vector<std::vector<kernel::KernelQp>> readings;
    std::string qp_error, qp_counter_error;
    const auto qp_counters_before = read_qp_counters(qp_counter_error);
    const auto start = std::chrono::steady_clock::now();
    try {
        health::QpReadings r = health::read_qps_over(o.interval_s);
        readings = std::move(r.readings);
        report.interval_s = r.seconds;
        report.interrupted = r.interrupted;
    } catch (const std::exception& e) {
        qp_error = e.what();
        const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(o.interval_s));
        if (!net::sleep_unless_interrupted(end)) {
            report.interrupted = true;
            report.interval_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
    const double seconds = report.interval_s;
    check_port_counters(ports, seconds, out);
    const auto qp_counters_after = read_qp_counters(qp_counter_error);
    for (const auto& pp : ports) {
        if (qp_counters_before && qp_counters_after)
            for (auto& f : health::qp_counter_findings(pp.device, pp.snap.port_num, pp.driver, *qp_counters_before,
                                               *qp_counters_after, seconds))
                out.push_back(std::move(f));
        else
            out.push_back(skipped("port.qp_counters", pp.device, pp.snap.port_num,
                                  "per-QP counters not read: " + qp_counter_error));
    }
    if (qp_error.empty()) {
        // One QP at a time: a host of tens of thousands keeps only its stuck ones' findings.
        const std::vector<kernel::KernelCmId> ids = health::cm_ids_or_none();
        const health::QpJudge judge(readings, seconds, ids, net::local_addresses());
        health::QpFindings findings(seconds, host::in_nested_pid_namespace());
        for (const auto& q : readings.back())
            if (const auto v = judge.judge(q))
                findings.add(*v);
        for (auto& f : findings.finish())
            out.push_back(std::move(f));
    } else {
        out.push_back(skipped("qp.summary", "", std::nullopt, "QPs of other processes not read: " + qp_error));
    }
    // The kernel's storage consumers: an NVMe-oF controller over RDMA that is not live.
    for (auto& f : health::nvme_rdma_findings(kernel::list_nvme_controllers()))
        out.push_back(std::move(f));
}

// The self-test, per ACTIVE port whose QPs qpscope can connect.
void run_self_tests(const std::vector<PortPlan>& ports, const DoctorOptions& o, std::vector<Finding>& out)
{
    if (!o.loopback)
        return;
    for (const auto& pp : ports) {
        // iWARP's QPs connect through rdma_cm only: with --cm its loopback runs.
        const bool cm_iwarp = o.loopback_cm && pp.transport == IBV_TRANSPORT_IWARP;
        if (auto refused = health::loopback_not_connectable(pp.device, pp.snap.port_num, pp.transport); refused && !cm_iwarp) {
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
        const LoopbackPort port{pp.device, pp.snap, pp.netdev, pp.opened, ethernet};
        Finding lf = loopback_finding(port, gid_finding, rdma_cm == out.end() ? nullptr : &*rdma_cm, o);
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
    check_counters_and_qps(ports, o, report);
    // 5. The self-test, per ACTIVE port whose QPs qpscope can connect
    //    (not after an interrupt: the findings so far are the report).
    if (!report.interrupted)
        run_self_tests(ports, o, out);
    report.interrupted = report.interrupted || net::interrupt_pending();  // during the self-test (bounded by its own limits)

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

}  // namespace qps::ops
