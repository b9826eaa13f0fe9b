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
    p.max_vl_num = decode::vl_cap(a.max_vl_num);
    p.init_type_reply = a.init_type_reply;
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

// What ibv_query_device_ex adds: more limits and capability masks.
void add_extended(const ibv_device_attr_ex& x, DeviceReport& d)
{
    const std::vector<NamedNumber> limits{
        {"completion_timestamp_mask", x.completion_timestamp_mask},
        {"hca_core_clock_khz", x.hca_core_clock},
        {"max_tso", x.tso_caps.max_tso},
        {"max_rwq_indirection_tables", x.rss_caps.max_rwq_indirection_tables},
        {"max_rwq_indirection_table_size", x.rss_caps.max_rwq_indirection_table_size},
        {"rx_hash_function", x.rss_caps.rx_hash_function},
        {"rx_hash_fields_mask", x.rss_caps.rx_hash_fields_mask},
        {"max_wq_type_rq", x.max_wq_type_rq},
        {"qp_rate_limit_min_kbps", x.packet_pacing_caps.qp_rate_limit_min},
        {"qp_rate_limit_max_kbps", x.packet_pacing_caps.qp_rate_limit_max},
        {"tm_max_rndv_hdr_size", x.tm_caps.max_rndv_hdr_size},
        {"tm_max_num_tags", x.tm_caps.max_num_tags},
        {"tm_max_ops", x.tm_caps.max_ops},
        {"tm_max_sge", x.tm_caps.max_sge},
        {"max_cq_moderation_count", x.cq_mod_caps.max_cq_count},
        {"max_cq_moderation_period_us", x.cq_mod_caps.max_cq_period},
        {"max_dm_size", x.max_dm_size},
    };
    d.limits.insert(d.limits.end(), limits.begin(), limits.end());

    const auto& odp = x.odp_caps;
    d.capabilities = {
        {"odp_general_caps", decode::decode_flags(decode::odp_general_caps_table, odp.general_caps)},
        {"rc_odp_caps", decode::decode_flags(decode::odp_transport_caps_table, odp.per_transport_caps.rc_odp_caps)},
        {"uc_odp_caps", decode::decode_flags(decode::odp_transport_caps_table, odp.per_transport_caps.uc_odp_caps)},
        {"ud_odp_caps", decode::decode_flags(decode::odp_transport_caps_table, odp.per_transport_caps.ud_odp_caps)},
        {"xrc_odp_caps", decode::decode_flags(decode::odp_transport_caps_table, x.xrc_odp_caps)},
        {"tso_qp_types", decode::decode_flags(decode::qp_types_mask_table, x.tso_caps.supported_qpts)},
        {"rss_qp_types", decode::decode_flags(decode::qp_types_mask_table, x.rss_caps.supported_qpts)},
        {"packet_pacing_qp_types",
         decode::decode_flags(decode::qp_types_mask_table, x.packet_pacing_caps.supported_qpts)},
        {"raw_packet_caps", decode::decode_flags(decode::raw_packet_caps_table, x.raw_packet_caps)},
        {"tm_caps", decode::decode_flags(decode::tm_caps_flags_table, x.tm_caps.flags)},
        {"pci_atomic_fetch_add", decode::decode_flags(decode::pci_atomic_sizes_table, x.pci_atomic_caps.fetch_add)},
        {"pci_atomic_swap", decode::decode_flags(decode::pci_atomic_sizes_table, x.pci_atomic_caps.swap)},
        {"pci_atomic_compare_swap",
         decode::decode_flags(decode::pci_atomic_sizes_table, x.pci_atomic_caps.compare_swap)},
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
    if (s.max_inline_rc.ok)
        d.max_inline_rc = s.max_inline_rc.value;
    else
        d.max_inline_error = s.max_inline_rc.error;
    if (s.attr_ex)
        add_extended(s.attr, d);
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
