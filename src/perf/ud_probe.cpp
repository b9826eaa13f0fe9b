#include "src/perf/ud_probe.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>

#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"
#include "src/error.hpp"
#include "src/kernel/sysfs.hpp"
#include "src/net/interrupt.hpp"

namespace qps::perf {

namespace {

using SteadyClock = std::chrono::steady_clock;

[[noreturn]] void completion_failed(const ibv_wc& wc, const char* what)
{
    throw OperationError(fmt::format("{} completed with {}: {}", what, *decode::wc_status(wc.status).name,
                                     decode::wc_status_meaning(wc.status)));
}

void check_interrupt() { net::throw_if_interrupted("probing the path"); }

bool readable_now(int fd)
{
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

}  // namespace

UdProbe::UdProbe(verbs::LinkResources& res, std::uint32_t port) : res_(res), port_(port) {}

std::optional<std::uint64_t> UdProbe::send_errors() const
{
    return kernel::read_port_counter(res_.device_name(), port_, "hw_counters", "send_err");
}

void UdProbe::top_up_receives(std::uint32_t n)
{
    while (receives_ < n) {
        ibv_sge sge{};
        sge.addr = reinterpret_cast<std::uintptr_t>(res_.recv_buf());
        sge.length = max_probe_bytes + verbs::ud_grh_bytes;
        sge.lkey = res_.lkey();
        ibv_recv_wr wr{};
        wr.sg_list = &sge;
        wr.num_sge = 1;
        ibv_recv_wr* bad = nullptr;
        if (int rc = ibv_post_recv(res_.qp(), &wr, &bad); rc != 0)
            throw SystemError(fmt::format("ibv_post_recv({}, receive {} of {})", res_.device_name(), receives_ + 1, n),
                              rc);
        ++receives_;
    }
}

void UdProbe::post_send(std::uint32_t size)
{
    ibv_sge sge{};
    sge.addr = reinterpret_cast<std::uintptr_t>(res_.send_buf());
    sge.length = size;
    sge.lkey = res_.lkey();
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = res_.ah();
    wr.wr.ud.remote_qpn = res_.remote_qpn();
    wr.wr.ud.remote_qkey = verbs::ud_qkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(res_.qp(), &wr, &bad); rc != 0)
        throw SystemError(fmt::format("ibv_post_send({}, UD send of {} bytes)", res_.device_name(), size), rc);
}

void UdProbe::reap_sends(std::uint32_t n, std::chrono::milliseconds timeout)
{
    const auto deadline = SteadyClock::now() + timeout;
    std::array<ibv_wc, 16> wc{};
    std::uint32_t spins = 0;
    while (n > 0) {
        const int got = ibv_poll_cq(res_.send_cq(), static_cast<int>(wc.size()), wc.data());
        if (got < 0)
            throw OperationError(fmt::format("ibv_poll_cq({} send CQ) failed", res_.device_name()));
        for (int i = 0; i < got; ++i)
            if (wc[static_cast<std::size_t>(i)].status != IBV_WC_SUCCESS)
                completion_failed(wc[static_cast<std::size_t>(i)], "a UD send");
        n -= std::min<std::uint32_t>(n, static_cast<std::uint32_t>(got));
        if (got == 0 && ++spins % 1024 == 0) {
            check_interrupt();
            if (SteadyClock::now() > deadline) {
                const auto now = send_errors();
                if (send_errors_at_start_ && now && *now > *send_errors_at_start_)
                    throw OperationError(fmt::format(
                        "{}: {} UD send{} did not complete within {} ms, and port {}'s send_err rose by {} "
                        "meanwhile: the device tried to send and this host did not let the packets out (an "
                        "output firewall rule on UDP 4791, a qdisc that drops, the netdev down); Soft-RoCE "
                        "tries again until the QP is destroyed",
                        res_.device_name(), n, n == 1 ? "" : "s", timeout.count(), port_,
                        *now - *send_errors_at_start_));
                throw TimeoutError(fmt::format("{}: a UD send did not complete within {} ms (the device's send "
                                               "queue is stuck)",
                                               res_.device_name(), timeout.count()));
            }
        }
    }
}

void UdProbe::send(std::uint32_t size, std::uint32_t count, std::chrono::milliseconds timeout)
{
    send_errors_at_start_ = send_errors();
    while (count > 0) {
        const std::uint32_t now = std::min(count, window_);
        for (std::uint32_t i = 0; i < now; ++i)
            post_send(size);
        reap_sends(now, timeout);
        count -= now;
    }
}

Arrivals UdProbe::drain()
{
    Arrivals a;
    std::array<ibv_wc, 32> wc{};
    for (;;) {
        const int got = ibv_poll_cq(res_.recv_cq(), static_cast<int>(wc.size()), wc.data());
        if (got < 0)
            throw OperationError(fmt::format("ibv_poll_cq({} receive CQ) failed", res_.device_name()));
        if (got == 0)
            break;
        for (int i = 0; i < got; ++i) {
            const ibv_wc& c = wc[static_cast<std::size_t>(i)];
            --receives_;
            if (c.status != IBV_WC_SUCCESS) {
                ++a.failed;
                continue;
            }
            const std::uint32_t grh = (c.wc_flags & IBV_WC_GRH) ? verbs::ud_grh_bytes : 0;
            ++a.by_size[c.byte_len >= grh ? c.byte_len - grh : 0];
        }
    }
    if (!a.by_size.empty()) {
        std::array<std::uint8_t, verbs::ud_grh_bytes> grh{};
        std::memcpy(grh.data(), res_.recv_buf(), grh.size());
        a.traffic_class = decode::received_traffic_class(grh);
    }
    return a;
}

std::uint32_t UdProbe::message_number() const
{
    std::uint32_t n = 0;
    std::memcpy(&n, res_.recv_buf() + verbs::ud_grh_bytes, sizeof n);
    return n;
}

Pings UdProbe::ping(std::uint32_t count, std::chrono::milliseconds wait, std::uint32_t give_up)
{
    Pings p;
    send_errors_at_start_ = send_errors();
    const std::uint32_t level = receives_;  // kept posted
    std::uint32_t lost_in_row = 0;
    std::array<ibv_wc, 8> wc{};
    for (std::uint32_t seq = 1; seq <= count; ++seq) {
        std::memcpy(res_.send_buf(), &seq, sizeof seq);
        const auto start = SteadyClock::now();
        post_send(ping_bytes);
        ++p.sent;
        reap_sends(1, wait);
        bool answered = false;
        std::uint32_t spins = 0;
        while (!answered) {
            const int got = ibv_poll_cq(res_.recv_cq(), static_cast<int>(wc.size()), wc.data());
            if (got < 0)
                throw OperationError(fmt::format("ibv_poll_cq({} receive CQ) failed", res_.device_name()));
            receives_ -= static_cast<std::uint32_t>(got);
            // Only the newest arrival's bytes are in the buffer: a late answer
            // to an earlier ping is told apart by its number.
            if (got > 0 && wc[static_cast<std::size_t>(got - 1)].status == IBV_WC_SUCCESS && message_number() == seq) {
                p.rtt_us.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - start).count());
                answered = true;
            } else if (got == 0 && ++spins % 256 == 0) {
                check_interrupt();
                if (SteadyClock::now() - start > wait)
                    break;
            }
        }
        top_up_receives(level);
        if (answered) {
            ++p.answered;
            lost_in_row = 0;
        } else if (++lost_in_row >= give_up) {
            p.stopped = fmt::format("{} pings in a row unanswered within {} ms each", lost_in_row, wait.count());
            break;
        }
    }
    return p;
}

std::uint32_t UdProbe::echo_until(int stop_fd, std::chrono::milliseconds limit, std::chrono::milliseconds send_timeout)
{
    send_errors_at_start_ = send_errors();
    const auto deadline = SteadyClock::now() + limit;
    const std::uint32_t level = receives_;  // kept posted
    std::uint32_t answered = 0, spins = 0;
    std::array<ibv_wc, 8> wc{};
    for (;;) {
        const int got = ibv_poll_cq(res_.recv_cq(), static_cast<int>(wc.size()), wc.data());
        if (got < 0)
            throw OperationError(fmt::format("ibv_poll_cq({} receive CQ) failed", res_.device_name()));
        for (int i = 0; i < got; ++i) {
            const ibv_wc& c = wc[static_cast<std::size_t>(i)];
            --receives_;
            if (c.status != IBV_WC_SUCCESS || i != got - 1)
                continue;  // only the newest arrival's number is in the buffer
            const std::uint32_t seq = message_number();
            std::memcpy(res_.send_buf(), &seq, sizeof seq);
            post_send(ping_bytes);
            reap_sends(1, send_timeout);
            ++answered;
        }
        if (got > 0) {
            top_up_receives(level);
            continue;
        }
        if (++spins % 256 == 0) {
            check_interrupt();
            if (readable_now(stop_fd) || SteadyClock::now() > deadline)
                return answered;
        }
    }
}

}  // namespace qps::perf
