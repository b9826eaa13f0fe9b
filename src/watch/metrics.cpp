#include "src/watch/metrics.hpp"

#include <map>
#include <tuple>
#include <fmt/format.h>

#include "src/kernel/rdma_netlink.hpp"
#include "src/report/kernel_qp.hpp"

namespace qps::watch {

namespace {

using report::MetricLabel;
using report::MetricType;

std::string pid_text(const std::optional<std::uint32_t>& pid) { return pid ? std::to_string(*pid) : ""; }

}  // namespace

void add_watch_metrics(report::MetricSet& set, const HostLook& look, const RecordTally& tally, std::uint64_t looks)
{
    report::add_ports_metrics(set, look.ports);
    const std::string prefix(report::metric_prefix);

    if (look.qps) {
        // (device, state, type, pid, owner) -> QPs
        std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, std::uint64_t> qps;
        for (const auto& q : *look.qps) {
            const report::KernelQpReport r = report::kernel_qp_report(q);
            ++qps[{q.dev_name, r.state.name.value_or(std::to_string(r.state.raw)),
                   r.type.name.value_or(std::to_string(r.type.raw)), pid_text(q.pid), q.comm}];
        }
        for (const auto& [k, n] : qps)
            set.add(prefix + "qps", MetricType::gauge,
                    "QPs of every process and kernel consumer (RDMA netlink), by device, state, type and owner "
                    "(pid empty for a kernel consumer)",
                    {{"device", std::get<0>(k)},
                     {"state", std::get<1>(k)},
                     {"type", std::get<2>(k)},
                     {"pid", std::get<3>(k)},
                     {"owner", std::get<4>(k)}},
                    n);
    }
    if (look.cm_ids) {
        std::map<std::tuple<std::string, std::string, std::string, std::string>, std::uint64_t> ids;
        for (const auto& c : *look.cm_ids)
            ++ids[{c.dev_name, kernel::cm_state_name(c.state), pid_text(c.pid), c.comm}];
        for (const auto& [k, n] : ids)
            set.add(prefix + "cm_ids", MetricType::gauge,
                    "rdma_cm IDs (RDMA netlink), by device, state and owner (device empty for an ID not bound "
                    "to one yet)",
                    {{"device", std::get<0>(k)}, {"state", std::get<1>(k)}, {"pid", std::get<2>(k)},
                     {"owner", std::get<3>(k)}},
                    n);
    }
    for (std::size_t k = 0; k <= static_cast<std::size_t>(WatchKind::stopped); ++k) {
        const auto kind = static_cast<WatchKind>(k);
        set.add(prefix + "watch_records_total", MetricType::counter,
                "Records the watch has written, by kind (qpscope watch --json's \"kind\")",
                {{"kind", std::string(kind_name(kind))}}, tally.of(kind));
    }
    set.add(prefix + "watch_looks_total", MetricType::counter,
            "Looks the watch has taken at the devices, QPs and counters", {}, looks);
    for (const auto& [part, ok] : {std::pair{"qps", look.qps.has_value()}, std::pair{"cm_ids", look.cm_ids.has_value()}})
        set.add(prefix + "watch_look_ok", MetricType::gauge,
                "1 when the last look read this part (RDMA netlink's QPs or rdma_cm IDs), 0 when it could not",
                {{"part", part}}, std::uint64_t{ok ? 1u : 0u});
}

}  // namespace qps::watch
