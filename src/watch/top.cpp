#include "src/watch/top.hpp"

#include <algorithm>

#include "src/kernel/sysfs.hpp"
#include "src/report/kernel_qp.hpp"

namespace qps::watch {

std::uint32_t psn_steps(std::uint32_t before, std::uint32_t after) { return (after - before) & 0xFFFFFFu; }

void TopBuilder::look(const HostLook& look, std::chrono::steady_clock::time_point now)
{
    const double elapsed_s =
        last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;
    ++model_.looks;

    model_.ports.clear();
    std::map<std::tuple<std::string, std::uint32_t>, kernel::PacketCounts> packets;
    for (const auto& d : look.ports.devices)
        for (const auto& p : d.ports) {
            TopPort t;
            t.device = d.name;
            t.port = p.port;
            t.state = p.state.name.value_or(std::to_string(p.state.raw));
            const auto counts = kernel::packet_counts(p.hw_counters, p.counters);
            const auto it = last_packets_.find({d.name, p.port});
            if (it != last_packets_.end() && elapsed_s > 0) {
                const auto moved = kernel::packets_since(it->second, counts);
                if (moved.sent)
                    t.sent_per_second = static_cast<double>(*moved.sent) / elapsed_s;
                if (moved.received)
                    t.received_per_second = static_cast<double>(*moved.received) / elapsed_s;
            }
            packets[{d.name, p.port}] = counts;
            model_.ports.push_back(std::move(t));
        }
    last_packets_ = std::move(packets);

    model_.qps_error = look.qps ? "" : look.qps_error;
    if (look.qps) {
        model_.qps.clear();
        std::map<QpKey, std::uint32_t> psns;
        for (const auto& q : *look.qps) {
            const report::KernelQpReport r = report::kernel_qp_report(q);
            TopQp t;
            t.device = q.dev_name;
            t.qpn = q.lqpn;
            t.type = r.type.name.value_or(std::to_string(r.type.raw));
            t.state = r.state.name.value_or(std::to_string(r.state.raw));
            t.pid = q.pid;
            t.owner = q.comm;
            t.dest_qpn = q.rqpn;
            const std::uint32_t psn = (q.sq_psn.value_or(0) + q.rq_psn.value_or(0)) & 0xFFFFFFu;
            if (const auto it = last_psns_.find({q.dev_name, q.lqpn}); it != last_psns_.end() && elapsed_s > 0)
                t.psn_per_second = psn_steps(it->second, psn) / elapsed_s;
            psns[{q.dev_name, q.lqpn}] = psn;
            model_.qps.push_back(std::move(t));
        }
        last_psns_ = std::move(psns);
        std::stable_sort(model_.qps.begin(), model_.qps.end(), [](const TopQp& a, const TopQp& b) {
            const double ra = a.psn_per_second.value_or(-1), rb = b.psn_per_second.value_or(-1);
            if (ra != rb)
                return ra > rb;
            return std::tie(a.device, a.qpn) < std::tie(b.device, b.qpn);
        });
    }
    last_time_ = now;
}

void TopBuilder::record(const WatchRecord& r)
{
    if (r.kind == WatchKind::port_rate)
        return;
    model_.events.push_back(r);
    while (model_.events.size() > events_kept_)
        model_.events.pop_front();
}

}  // namespace qps::watch
