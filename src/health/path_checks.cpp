#include "src/health/path_checks.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "src/decode/qp.hpp"
#include "src/error.hpp"

namespace qps::health {

namespace {

std::string duration(double us) { return decode::human_duration_us(us); }

// The smallest timeout code whose timer is at least `us`.
int code_for(double us)
{
    int code = 1;
    while (code < decode::max_timer_code && *decode::ack_timeout_us(code) < us)
        ++code;
    return code;
}

}  // namespace

Finding check_ack_timeout(double rtt_us, int timeout_code, int retry_cnt)
{
    if (timeout_code < 0 || timeout_code > decode::max_timer_code)
        throw UsageError(fmt::format("ACK timeout code {} is out of range: valid are 0..{}", timeout_code,
                                     decode::max_timer_code));
    Finding f;
    f.id = "path.ack_timeout";
    f.seen = {{"rtt_us", fmt::format("{:.3f}", rtt_us)},
              {"timeout_code", std::to_string(timeout_code)},
              {"retry_cnt", std::to_string(retry_cnt)}};
    const auto timeout_us = decode::ack_timeout_us(timeout_code);
    if (!timeout_us) {
        f.summary = fmt::format("round trip {}; local ACK timeout off (code 0): an RC QP waits for an ACK forever",
                                duration(rtt_us));
        return f;
    }
    f.seen.emplace_back("timeout_us", fmt::format("{:.3f}", *timeout_us));
    if (rtt_us < *timeout_us) {
        f.summary = fmt::format("round trip {} within the local ACK timeout {} (code {}, {:.0f}x the round trip)",
                                duration(rtt_us), duration(*timeout_us), timeout_code, *timeout_us / rtt_us);
        return f;
    }
    f.status = Status::warn;
    const auto gives_up = decode::retry_exceeded_wait_us(timeout_code, retry_cnt);
    f.summary = fmt::format("round trip {} is longer than the local ACK timeout {} (code {}): an RC QP retransmits "
                            "before any ACK can arrive{}",
                            duration(rtt_us), duration(*timeout_us), timeout_code,
                            gives_up ? fmt::format(", and fails with RETRY_EXC_ERR after {} retries ({})", retry_cnt,
                                                   duration(*gives_up))
                                     : std::string());
    f.why = "every message is sent again before its ACK is back: the link carries duplicates, and a QP whose "
            "retries run out ends in ERR though the peer answered";
    f.fix = fmt::format("give the QPs an ACK timeout of code {} or more (4.096 us x 2^code at least twice the round "
                        "trip): ibv_qp_attr.timeout, 'qpscope qp modify --timeout', or the application's setting",
                        code_for(2 * rtt_us));
    return f;
}

Finding check_path_mtu(const std::vector<MtuProbe>& given, std::uint32_t port_mtu, std::uint32_t header_bytes)
{
    std::vector<MtuProbe> probes = given;
    std::sort(probes.begin(), probes.end(), [](const MtuProbe& a, const MtuProbe& b) { return a.bytes < b.bytes; });
    const auto whole = [](const MtuProbe& p) { return p.sent > 0 && p.arrived == p.sent; };
    Finding f;
    f.id = "path.mtu";
    for (const auto& p : probes)
        f.seen.emplace_back(fmt::format("{} bytes", p.bytes), fmt::format("{} of {} arrived", p.arrived, p.sent));
    const auto first_bad = std::find_if_not(probes.begin(), probes.end(), whole);
    if (first_bad == probes.end()) {
        f.summary = fmt::format("every size arrived, up to {} bytes (the port's active MTU {})",
                                probes.empty() ? 0 : probes.back().bytes, port_mtu);
        return f;
    }
    const bool larger_whole = std::any_of(first_bad + 1, probes.end(), whole);
    if (larger_whole) {
        f.status = Status::warn;
        f.summary = fmt::format("{} bytes: {} of {} arrived while larger messages arrived whole: loss on the path, "
                                "not its MTU",
                                first_bad->bytes, first_bad->arrived, first_bad->sent);
        f.why = "packets are lost on the way; RC retransmits them, at the cost of the ACK timeout each time";
        f.fix = "see the loss and the error counters on both sides ('qpscope doctor' on each host)";
        return f;
    }
    f.status = Status::fail;
    if (first_bad == probes.begin()) {
        f.summary = fmt::format("no size arrived whole (the smallest, {} bytes: {} of {}): RoCE packets do not "
                                "reach the peer",
                                first_bad->bytes, first_bad->arrived, first_bad->sent);
        f.why = "RDMA traffic cannot cross this path at any size, while the TCP exchange did";
        f.fix = "look for UDP port 4791 dropped on the way or at the peer (a firewall, an ACL), and at the peer's "
                "RDMA device and address";
        return f;
    }
    const std::uint32_t fits = (first_bad - 1)->bytes;
    f.summary = fmt::format("{} bytes arrive, {} do not ({} of {}): something between here and there carries less "
                            "than {} + {} header bytes",
                            fits, first_bad->bytes, first_bad->arrived, first_bad->sent, first_bad->bytes,
                            header_bytes);
    f.why = fmt::format("the port's active MTU is {}: RDMA messages cut into packets of that size are dropped on "
                        "the way, so small messages pass and large ones never complete",
                        port_mtu);
    f.fix = fmt::format("lower the path MTU to {} (the QPs' path_mtu, e.g. --mtu {}, or the netdev MTU to {}), or "
                        "raise the MTU of the hop that drops them to at least {}",
                        fits, fits, fits + header_bytes, first_bad->bytes + header_bytes);
    return f;
}

}  // namespace qps::health
