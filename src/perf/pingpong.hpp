// `qpscope ping-pong`: the whole test on one side. The client parses every
// parameter and sends it; the server adopts it over the out-of-band
// exchange; each size runs between two barriers; the server's figures come
// back to the client, so one report holds both sides.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/perf/latency.hpp"
#include "src/report/latency.hpp"

namespace qps::perf {

enum class InlineMode { automatic, on, off };

struct PingPongOptions {
    std::string host;                   // empty: serve
    std::uint16_t tcp_port = 18615;
    std::string device;
    std::uint8_t port = 1;
    std::optional<std::uint32_t> gid_index;
    Op op = Op::send;
    ibv_qp_type transport = IBV_QPT_RC;
    std::vector<std::uint32_t> sizes{2};
    std::uint64_t iterations = 1000;
    std::optional<double> duration_s;
    std::uint64_t warmup = 100;
    InlineMode inline_mode = InlineMode::automatic;
    std::optional<ibv_mtu> mtu;
    std::chrono::milliseconds timeout{10000};
    std::optional<int> cpu;
    std::size_t histogram_rows = 0;     // 0: no histogram
    // Test parameters the server was given explicitly: they must agree with
    // the client's, or the server names the mismatch.
    std::vector<std::string> server_explicit;
};

// Validates op × transport and sizes against the MTU for UD; throws UsageError.
void check_combination(const PingPongOptions& o);

// Runs the client or server side; a watchdog abort returns a report with
// aborted set (the caller exits 3). `progress` (may be empty) is called
// after each size.
report::PingPongReport run_ping_pong(const PingPongOptions& o,
                                     const std::function<void(const report::SizeResult&)>& progress = {});

}  // namespace qps::perf
