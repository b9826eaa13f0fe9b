// `watch --top`'s view as data: each port's state and packet rates, the
// QPs of every process busiest first (PSNs a second between two looks,
// with owner and state), and the last records. Built from the looks and
// records the watch already makes (pure, tested on the host); laid out by
// formatters/top.hpp and drawn by formatters/top_screen.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "src/kernel/sysfs.hpp"
#include "src/watch/records.hpp"

namespace qps::watch {

struct TopPort {
    std::string device;
    std::uint32_t port = 0;
    std::string state;                      // ACTIVE, DOWN, ...
    std::optional<double> sent_per_second;  // packets; nullopt before a second look, or no counters
    std::optional<double> received_per_second;
};

struct TopQp {
    std::string device;
    std::uint32_t qpn = 0;
    std::string type, state;
    std::optional<std::uint32_t> pid;
    std::string owner;                 // its process's comm, or the kernel consumer's name
    std::optional<std::uint32_t> dest_qpn;
    std::optional<double> psn_per_second;  // its send and receive PSNs moved a second (nullopt: first seen)
};

struct TopModel {
    std::vector<TopPort> ports;
    std::vector<TopQp> qps;             // busiest first (then device, QPN)
    std::string qps_error;              // why RDMA netlink's QPs could not be read, or ""
    std::deque<WatchRecord> events;     // the last records, oldest first
    std::uint64_t looks = 0;
};

class TopBuilder {
public:
    explicit TopBuilder(std::size_t events_kept = 100) : events_kept_(events_kept) {}
    // A look: ports and QPs replaced, rates from the look before.
    void look(const HostLook& look, std::chrono::steady_clock::time_point now);
    // A record for the events panel (port_rate records are the ports panel's, not kept).
    void record(const WatchRecord& r);
    const TopModel& model() const { return model_; }

private:
    using QpKey = std::tuple<std::string, std::uint32_t>;
    std::size_t events_kept_;
    TopModel model_;
    std::optional<std::chrono::steady_clock::time_point> last_time_;
    std::map<QpKey, std::uint32_t> last_psns_;  // sq_psn + rq_psn, as PSN steps
    std::map<std::tuple<std::string, std::uint32_t>, kernel::PacketCounts> last_packets_;
};

// PSNs are 24 bits: the steps from `before` to `after`, across a wrap.
std::uint32_t psn_steps(std::uint32_t before, std::uint32_t after);

}  // namespace qps::watch
