// The `ports` report: every device and port, decoded once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::report {

struct NamedNumber {
    std::string_view key;
    std::uint64_t value;
};

struct NamedFlags {
    std::string_view key;
    decode::Flags flags;
};

struct GidReport {
    std::uint32_t index = 0;
    std::string gid;                  // empty when the query failed
    std::optional<decode::Decoded> type;
    std::string netdev;
    std::optional<std::string> ipv4;
    std::string error;                // why the entry could not be read
};

struct PkeyReport {
    std::uint16_t index;
    std::uint16_t pkey;
    bool full_member;  // bit 15
};

struct PortReport {
    std::uint32_t port = 0;
    decode::Decoded state, phys_state, link_layer;
    std::uint16_t lid = 0, sm_lid = 0;
    std::uint8_t lmc = 0, sm_sl = 0, subnet_timeout = 0, init_type_reply = 0;
    decode::Decoded max_vl_num;
    decode::Decoded width, speed;
    std::optional<double> rate_gbps, data_rate_gbps;
    decode::Decoded max_mtu, active_mtu;
    std::uint32_t max_msg_sz = 0;
    int gid_tbl_len = 0;
    std::uint16_t pkey_tbl_len = 0;
    decode::Flags cap_flags, cap_flags2;
    std::uint32_t bad_pkey_cntr = 0, qkey_viol_cntr = 0;
    std::vector<GidReport> gids;
    std::uint32_t gid_empty = 0;
    std::vector<PkeyReport> pkeys;
    std::vector<std::string> pkey_errors;
    kernel::CounterSet counters, hw_counters;
};

struct DeviceReport {
    std::string name, uverbs;
    decode::Decoded node_type, transport;
    std::string fw_ver, node_guid, sys_image_guid;
    std::uint32_t vendor_id = 0, vendor_part_id = 0, hw_ver = 0;
    std::uint32_t phys_port_cnt = 0;
    decode::Decoded atomic_cap;
    decode::Flags cap_flags;
    std::vector<NamedNumber> limits;   // max_qp, max_qp_wr, ... in ibv_devinfo order
    std::optional<std::uint32_t> max_inline_rc;  // probed with RC QPs
    std::string max_inline_error;                // why the probe failed
    std::vector<NamedFlags> capabilities;  // extended capability masks (ODP, TSO, ...)
    std::vector<PortReport> ports;
};

struct PortsReport {
    std::vector<DeviceReport> devices;
};

PortsReport build_ports_report(const std::vector<verbs::DeviceSnapshot>& devices);

}  // namespace qps::report
