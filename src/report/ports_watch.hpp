// `ports --watch`'s samples: the port counters, each with its change since
// the previous sample. The arithmetic is pure (tested on the host); the
// loop that waits between samples is the operation's (src/ops/ports.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/report/ports.hpp"

namespace qps::report {

// The accepted range of --watch SECONDS.
inline constexpr double min_watch_interval_s = 0.01;
inline constexpr double max_watch_interval_s = 86400;

// "1", "0.5", "2s" -> seconds. Throws UsageError naming the text and the
// valid range for anything else (0, negatives, NaN, "fast", "1m").
double parse_watch_interval(std::string_view text);

// One counter at one sample.
struct CounterChange {
    std::string name;
    std::optional<std::uint64_t> value;  // nullopt: the file could not be read this time
    std::string error;                   // why value is missing
    // Since the previous sample; nullopt on the first sample of this
    // counter, when either reading failed, and after a reset.
    std::optional<std::uint64_t> delta;
    std::optional<double> per_second;    // delta / elapsed; nullopt with delta or when no time passed
    bool reset = false;                  // the value went down: the counter wrapped or was reset
};

// The change of one counter from `before` (nullopt: no earlier reading) to
// `now`, over `elapsed_s` seconds. A counter that went down is reported
// as reset, never as a negative or huge delta.
CounterChange counter_change(const kernel::Counter& now, std::optional<std::uint64_t> before,
                             std::optional<double> elapsed_s);

struct PortSample {
    std::uint32_t port = 0;
    decode::Decoded state, phys_state;
    std::vector<CounterChange> counters, hw_counters;  // sysfs counters/ and hw_counters/, by name
};

struct DeviceSample {
    std::string name;
    std::vector<PortSample> ports;
};

struct WatchSample {
    std::uint64_t number = 0;            // 1, 2, ...
    std::string timestamp;               // RFC 3339, UTC, milliseconds: 2026-11-21T09:30:00.250Z
    double interval_s = 0;               // the requested interval
    std::optional<double> elapsed_s;     // since the previous sample; nullopt on the first
    std::vector<DeviceSample> devices;
};

// "2026-11-21T09:30:00.250Z"
std::string rfc3339_utc(std::chrono::system_clock::time_point t);

// Turns successive ports reports into samples with deltas; remembers the
// previous reading of every (device, port, set, counter).
class CounterWatch {
public:
    explicit CounterWatch(double interval_s) : interval_s_(interval_s) {}
    WatchSample next(const PortsReport& report, std::chrono::steady_clock::time_point now,
                     std::chrono::system_clock::time_point wall);

private:
    using Key = std::tuple<std::string, std::uint32_t, std::string_view, std::string>;
    std::vector<CounterChange> changes(const std::string& device, std::uint32_t port, std::string_view set,
                                       const kernel::CounterSet& counters, std::optional<double> elapsed_s,
                                       std::map<Key, std::uint64_t>& readings) const;

    double interval_s_;
    std::uint64_t samples_ = 0;
    std::optional<std::chrono::steady_clock::time_point> last_;
    std::map<Key, std::uint64_t> previous_;
};

struct WatchOptions {
    double interval_s = 1;
    std::uint64_t count = 0;  // samples to take; 0: until interrupted
};

}  // namespace qps::report
