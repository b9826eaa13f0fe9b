#include "src/report/ports.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "src/decode/device.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/error.hpp"

namespace qps::report {

namespace {

GidReport gid_report(const verbs::GidRow& row)
{
    GidReport g;
    g.index = row.index;
    if (row.err != 0) {
        g.error = fmt::format("{} ({})", errno_name(row.err), std::strerror(row.err));
        return g;
    }
    decode::GidBytes bytes;
    std::memcpy(bytes.data(), row.entry.gid.raw, bytes.size());
    g.gid = decode::format_gid(bytes);
    g.type = decode::gid_type(static_cast<int>(row.entry.gid_type));
    g.netdev = row.netdev;
    g.ipv4 = decode::gid_ipv4(bytes);
    return g;
}

PortReport port_report(const verbs::PortSnapshot& s)
{
    const ibv_port_attr& a = s.attr;
    PortReport p;
    p.port = s.port_num;
    p.state = decode::port_state(a.state);
    p.phys_state = decode::phys_state(a.phys_state);
    p.link_layer = decode::link_layer(a.link_layer);
    p.lid = a.lid;
    p.sm_lid = a.sm_lid;
    p.lmc = a.lmc;
    p.sm_sl = a.sm_sl;
    p.max_vl_num = a.max_vl_num;
    p.subnet_timeout = a.subnet_timeout;
    p.width = decode::width(a.active_width);
    const int speed_raw = s.active_speed_ex ? static_cast<int>(s.active_speed_ex) : a.active_speed;
    p.speed = decode::speed(speed_raw);
    if (auto r = decode::link_rate(a.active_width, speed_raw)) {
        p.rate_gbps = r->gbps;
        p.data_rate_gbps = r->data_gbps;
    }
    p.max_mtu = decode::mtu(a.max_mtu);
    p.active_mtu = decode::mtu(a.active_mtu);
    p.max_msg_sz = a.max_msg_sz;
    p.gid_tbl_len = a.gid_tbl_len;
    p.pkey_tbl_len = a.pkey_tbl_len;
    p.cap_flags = decode::port_cap_flags(a.port_cap_flags);
    p.cap_flags2 = decode::port_cap_flags2(a.port_cap_flags2);
    p.bad_pkey_cntr = a.bad_pkey_cntr;
    p.qkey_viol_cntr = a.qkey_viol_cntr;
    for (const auto& row : s.gids)
        p.gids.push_back(gid_report(row));
    p.gid_empty = s.gid_empty;
    for (const auto& k : s.pkeys)
        p.pkeys.push_back({k.index, k.pkey, (k.pkey & 0x8000) != 0});
    p.pkey_errors = s.pkey_errors;
    p.counters = s.counters;
    p.hw_counters = s.hw_counters;
    return p;
}

std::vector<NamedNumber> device_limits(const ibv_device_attr& a)
{
    auto u = [](auto v) { return static_cast<std::uint64_t>(v); };
    return {
        {"max_mr_size", u(a.max_mr_size)},
        {"page_size_cap", u(a.page_size_cap)},
        {"max_qp", u(a.max_qp)},
        {"max_qp_wr", u(a.max_qp_wr)},
        {"max_sge", u(a.max_sge)},
        {"max_sge_rd", u(a.max_sge_rd)},
        {"max_cq", u(a.max_cq)},
        {"max_cqe", u(a.max_cqe)},
        {"max_mr", u(a.max_mr)},
        {"max_pd", u(a.max_pd)},
        {"max_qp_rd_atom", u(a.max_qp_rd_atom)},
        {"max_ee_rd_atom", u(a.max_ee_rd_atom)},
        {"max_res_rd_atom", u(a.max_res_rd_atom)},
        {"max_qp_init_rd_atom", u(a.max_qp_init_rd_atom)},
        {"max_ee_init_rd_atom", u(a.max_ee_init_rd_atom)},
        {"max_ee", u(a.max_ee)},
        {"max_rdd", u(a.max_rdd)},
        {"max_mw", u(a.max_mw)},
        {"max_raw_ipv6_qp", u(a.max_raw_ipv6_qp)},
        {"max_raw_ethy_qp", u(a.max_raw_ethy_qp)},
        {"max_mcast_grp", u(a.max_mcast_grp)},
        {"max_mcast_qp_attach", u(a.max_mcast_qp_attach)},
        {"max_total_mcast_qp_attach", u(a.max_total_mcast_qp_attach)},
        {"max_ah", u(a.max_ah)},
        {"max_fmr", u(a.max_fmr)},
        {"max_map_per_fmr", u(a.max_map_per_fmr)},
        {"max_srq", u(a.max_srq)},
        {"max_srq_wr", u(a.max_srq_wr)},
        {"max_srq_sge", u(a.max_srq_sge)},
        {"max_pkeys", u(a.max_pkeys)},
        {"local_ca_ack_delay", u(a.local_ca_ack_delay)},
    };
}

DeviceReport device_report(const verbs::DeviceSnapshot& s)
{
    const ibv_device_attr& a = s.attr.orig_attr;
    DeviceReport d;
    d.name = s.name;
    d.uverbs = s.uverbs;
    d.node_type = decode::node_type(s.node_type);
    d.transport = decode::transport(s.transport);
    d.fw_ver = a.fw_ver;
    d.node_guid = decode::format_guid(a.node_guid);
    d.sys_image_guid = decode::format_guid(a.sys_image_guid);
    d.vendor_id = a.vendor_id;
    d.vendor_part_id = a.vendor_part_id;
    d.hw_ver = a.hw_ver;
    d.phys_port_cnt = a.phys_port_cnt;
    d.atomic_cap = decode::atomic_cap(a.atomic_cap);
    // device_cap_flags_ex is a superset of device_cap_flags when present.
    d.cap_flags = decode::device_cap_flags(s.attr_ex ? s.attr.device_cap_flags_ex
                                                     : static_cast<std::uint32_t>(a.device_cap_flags));
    d.limits = device_limits(a);
    if (s.attr_ex) {
        d.limits.push_back({"completion_timestamp_mask", s.attr.completion_timestamp_mask});
        d.limits.push_back({"hca_core_clock_khz", s.attr.hca_core_clock});
        d.limits.push_back({"max_wq_type_rq", s.attr.max_wq_type_rq});
        d.limits.push_back({"max_dm_size", s.attr.max_dm_size});
    }
    d.limits.push_back({"num_comp_vectors", static_cast<std::uint64_t>(s.num_comp_vectors)});
    for (const auto& p : s.ports)
        d.ports.push_back(port_report(p));
    return d;
}

}  // namespace

PortsReport build_ports_report(const std::vector<verbs::DeviceSnapshot>& devices)
{
    PortsReport r;
    for (const auto& d : devices)
        r.devices.push_back(device_report(d));
    return r;
}

}  // namespace qps::report
