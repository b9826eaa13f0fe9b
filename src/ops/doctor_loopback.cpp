#include "src/ops/doctor_loopback.hpp"

#include <arpa/inet.h>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netinet/in.h>
#include <tuple>
#include <vector>

#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/health/port_checks.hpp"
#include "src/health/preflight.hpp"
#include "src/ops/loopback.hpp"

namespace qps::ops {

namespace {

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
    return health::netdev_address(netdev);
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

}  // namespace

// `rdma_cm`: the host's device.rdma_cm finding, which explains a --cm
// self-test that could not reach rdma_cm at all.
Finding loopback_finding(const LoopbackPort& pp, const Finding* roce_gid, const Finding* rdma_cm,
                         const DoctorOptions& o)
{
    const std::string& device = pp.device;
    const std::uint32_t port = pp.snap.port_num;
    const bool ethernet = pp.ethernet;
    ops::LoopbackSpec spec;
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
        Finding f = health::loopback_failure(device, port, *problem, "", 0, ethernet, roce_gid);
        f.why = "the P_Key index asked for is not one of this port's: a QP on it cannot be made or reaches nobody";
        f.fix = "give an index of the table ('qpscope ports -v' lists it), or have the SM add the partition";
        return f;
    }
    const ops::LoopbackResult r = ops::run_loopback(spec);
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
        Finding failed = health::loopback_failure(device, port, r.error, r.failed_call, r.err, ethernet, roce_gid);
        failed.seen.insert(failed.seen.begin(), f.seen.begin(), f.seen.end());
        // rdma_cm's own device file, not the NIC: device.rdma_cm says which and the fix.
        if (spec.cm && r.failed_call == "rdma_create_event_channel" && rdma_cm && rdma_cm->status != Status::ok) {
            failed.why = "the self-test connects through rdma_cm, as asked, and this user cannot open rdma_cm's device "
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

}  // namespace qps::ops
