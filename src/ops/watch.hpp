// `watch`'s operation: looks at the host's RDMA every interval (devices,
// ports, GID tables, counters, RDMA netlink's QPs and rdma_cm IDs) and,
// between looks, reads every device's asynchronous events as they come;
// hands each record to `emit` as it happens. The comparison of two looks
// is src/watch/records.hpp's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "src/report/ports_watch.hpp"  // parse_watch_interval: --interval is read as ports --watch reads its SECONDS
#include "src/watch/exporter.hpp"
#include "src/watch/records.hpp"

namespace qps::ops {

struct WatchQuery {
    std::string device;       // empty: every device, those added later too
    double interval_s = 1;    // between looks
    std::uint64_t looks = 0;  // looks to take (--count); 0: until SIGINT/SIGTERM
    // --prometheus: serve the metrics of each look there (src/watch/metrics.hpp)
    std::optional<watch::ListenAddress> metrics_at;
};

// What `--top` adds to the loop: each look once its records are out, and
// a file descriptor (the keyboard) waited on beside the devices' events;
// when it is readable `on_input` says whether to stop (`q`).
struct WatchHooks {
    std::function<void(const watch::HostLook& look, std::chrono::steady_clock::time_point now)> on_look;
    int input_fd = -1;
    std::function<bool()> on_input;
    std::string input_stop = "q pressed";  // the stopped record's reason
};

// Runs until `looks` looks were taken or SIGINT/SIGTERM, which end it
// normally (the interrupt is cleared before it returns: exit 0). The last
// record is always `stopped`, saying why. A device that leaves the host
// ends its part of the watch with a record; the rest go on. One context is
// kept open per device for its events, and closed as soon as a look no
// longer lists the device: a driver that waits for its users to close
// (rxe's `rdma link delete`) waits at most one interval.
// With `metrics_at`, it listens there before the first look (OperationError
// when it cannot), says where in the `started` record, and publishes each
// look's metrics once its records are out.
// UsageError for an unknown `device`.
void watch_host(const WatchQuery& query, const std::function<void(const watch::WatchRecord&)>& emit,
                const WatchHooks& hooks = {});

}  // namespace qps::ops
