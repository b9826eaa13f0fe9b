// What the kernel publishes under /sys/class/infiniband that verbs do not:
// port counters (counters/ and hw_counters/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qps::kernel {

struct Counter {
    std::string name;
    std::optional<std::uint64_t> value;
    std::string error;  // why value is missing
};

struct CounterSet {
    bool present = false;          // the directory exists
    std::vector<Counter> counters; // sorted by name
};

// Reads every counter file in /sys/class/infiniband/DEV/ports/PORT/SUBDIR.
// `root` is replaceable for tests.
CounterSet read_port_counters(const std::string& device, std::uint32_t port, const std::string& subdir,
                              const std::string& root = "/sys/class/infiniband");

// Parses the text of one counter file ("1234\n"); nullopt when malformed.
std::optional<std::uint64_t> parse_counter(const std::string& text);

}  // namespace qps::kernel
