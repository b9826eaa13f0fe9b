// A ports report of one port (rxe0 port 1, ACTIVE, LinkUp) with the
// counters given: what the watch's unit tests sample.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/decode/port.hpp"
#include "src/report/ports.hpp"

namespace qps::test {

inline kernel::Counter reading(std::string name, std::uint64_t v) { return {std::move(name), v, {}}; }

inline report::PortsReport one_port(std::vector<kernel::Counter> hw, std::vector<kernel::Counter> counters = {})
{
    report::PortsReport r;
    report::DeviceReport& d = r.devices.emplace_back();
    d.name = "rxe0";
    report::PortReport& p = d.ports.emplace_back();
    p.port = 1;
    p.state = decode::port_state(4);
    p.phys_state = decode::phys_state(5);
    p.hw_counters.present = true;
    p.hw_counters.counters = std::move(hw);
    p.counters.present = !counters.empty();
    p.counters.counters = std::move(counters);
    return r;
}

}  // namespace qps::test
