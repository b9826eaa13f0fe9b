// `watch --prometheus`'s metrics: the port families of `ports --format
// prometheus` (report::add_ports_metrics, the same names, labels and
// values), the QPs of every process by state and owner, the rdma_cm IDs by
// state and owner, and how many records of each kind the watch has
// written. Built from the last look (pure, tested on the host); served by
// src/watch/exporter.hpp.
#pragma once

#include <array>
#include <cstdint>

#include "src/report/metrics.hpp"
#include "src/watch/records.hpp"

namespace qps::watch {

// Records written so far, by kind (every kind from the start, 0 until one
// comes: a series that appears late reads as a gap).
class RecordTally {
public:
    void count(const WatchRecord& r) { ++counts_[static_cast<std::size_t>(r.kind)]; }
    std::uint64_t of(WatchKind kind) const { return counts_[static_cast<std::size_t>(kind)]; }

private:
    std::array<std::uint64_t, static_cast<std::size_t>(WatchKind::stopped) + 1> counts_{};
};

// The metrics of one look: add_ports_metrics(look.ports), then
//   qpscope_qps{device,state,type,pid,owner}        QPs (gauge)
//   qpscope_cm_ids{device,state,pid,owner}          rdma_cm IDs (gauge)
//   qpscope_watch_records_total{kind}               records written (counter)
//   qpscope_watch_looks_total                       looks taken (counter)
//   qpscope_watch_look_ok{part}                     1 when the look read it (RDMA netlink's QPs, IDs)
// pid is "" for a kernel consumer's QP; owner is its comm or module name.
void add_watch_metrics(report::MetricSet& set, const HostLook& look, const RecordTally& tally, std::uint64_t looks);

}  // namespace qps::watch
