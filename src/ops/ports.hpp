// `ports`' operation: this host's devices and ports, decoded, once or
// (--watch) sampled at an interval until a count of samples or
// SIGINT/SIGTERM. The delta arithmetic of a sample is pure and lives in
// src/report/ports_watch.hpp; the loop that waits between samples is here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "src/report/ports.hpp"
#include "src/report/ports_watch.hpp"

namespace qps::ops {

// Which ports: one device (empty: every one) and one port (nullopt: every one).
struct PortsQuery {
    std::string device;
    std::optional<std::uint32_t> port;
};

// Every attribute of the ports asked for, with their GID and P_Key tables
// and counters. An unknown device: UsageError naming the devices there are.
report::PortsReport ports_report(const PortsQuery& query);

// Takes a sample now and then every interval_s (on a fixed schedule; a
// slow sample skips the ticks less than half an interval after it) until
// `count` samples or until SIGINT/SIGTERM, which end the loop normally.
// `read` produces a report, `emit` shows the sample. Install the interrupt
// handlers first (commands/app.cpp's run() does).
void run_watch(const report::WatchOptions& options, const std::function<report::PortsReport()>& read,
               const std::function<void(const report::WatchSample&)>& emit);

// `ports --watch`: run_watch over the ports' attributes and counters (the
// tables are left out: they do not change from one second to the next).
// SIGINT/SIGTERM are its normal end: the interrupt is cleared before it
// returns, so the command exits 0.
void watch_ports(const PortsQuery& query, const report::WatchOptions& options,
                 const std::function<void(const report::WatchSample&)>& emit);

}  // namespace qps::ops
