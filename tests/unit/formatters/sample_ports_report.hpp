// A constructed `ports` report with what real devices rarely show at once:
// two devices (InfiniBand and Ethernet), an unknown MTU, no rate, counter
// names that need sanitizing or clash once sanitized, an unreadable counter,
// and label values with a backslash, a double quote and a line feed. Used by
// the formatter unit tests and by tests/cli/prometheus_sample (which feeds
// the Prometheus output to promtool).
#pragma once

#include "src/decode/device.hpp"
#include "src/decode/port.hpp"
#include "src/report/ports.hpp"

namespace qps::test {

inline kernel::Counter counter(std::string name, std::uint64_t value) { return {std::move(name), value, {}}; }

inline report::PortsReport sample_ports_report()
{
    report::PortsReport r;

    report::DeviceReport ib;
    ib.name = "mlx5_0";
    ib.uverbs = "uverbs0";
    ib.node_type = decode::node_type(1);
    ib.transport = decode::transport(0);
    ib.fw_ver = "20.31.1014 \"beta\" \\ build\nline2";
    ib.node_guid = "0c42:a103:0065:a1b2";
    ib.sys_image_guid = "0c42:a103:0065:a1b2";
    for (std::uint32_t n : {1u, 2u}) {
        report::PortReport p;
        p.port = n;
        p.state = decode::port_state(n == 1 ? 4 : 1);
        p.phys_state = decode::phys_state(n == 1 ? 5 : 3);
        p.link_layer = decode::link_layer(1);
        p.rate_gbps = 100;
        p.data_rate_gbps = 96.875;
        p.max_mtu = decode::mtu(5);
        p.active_mtu = decode::mtu(5);
        p.bad_pkey_cntr = 2;
        p.counters.present = true;
        p.counters.counters = {counter("port_rcv_data", 18446744073709551615ull), counter("port_xmit_data", 1000),
                               counter("symbol_error", 0)};
        p.hw_counters.present = true;
        p.hw_counters.counters = {counter("np_cnp_sent", 7), counter("rx-Pkts.1", 3), counter("rx_pkts_1", 4),
                                  counter("total", 9), {"req_cqe_error", std::nullopt, "Operation not supported"}};
        ib.ports.push_back(std::move(p));
    }
    r.devices.push_back(std::move(ib));

    report::DeviceReport eth;
    eth.name = "rxe0";
    eth.uverbs = "uverbs1";
    eth.node_type = decode::node_type(1);
    eth.transport = decode::transport(0);
    report::PortReport p;
    p.port = 1;
    p.state = decode::port_state(4);
    p.phys_state = decode::phys_state(5);
    p.link_layer = decode::link_layer(2);
    p.max_mtu = decode::mtu(5);
    p.active_mtu = decode::mtu(9);  // no such MTU code: no sample
    p.hw_counters.present = true;
    p.hw_counters.counters = {counter("rcvd_pkts", 12), counter("sent_pkts", 10)};
    eth.ports.push_back(std::move(p));
    r.devices.push_back(std::move(eth));
    return r;
}

}  // namespace qps::test
