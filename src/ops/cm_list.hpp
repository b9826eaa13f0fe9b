// `cm list`: every rdma_cm ID of the host (the kernel's view over RDMA
// netlink, as `rdma resource show cm_id`), filtered and decoded once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "src/kernel/rdma_netlink.hpp"
#include "src/report/cm_id.hpp"

namespace qps::ops {

// What `cm list` keeps; every member unset keeps everything.
struct CmListFilter {
    std::string device;                // only this device's IDs
    std::string phase;                 // only IDs in this phase (decode::cm_phase_words)
    std::optional<std::uint32_t> pid;  // only this process's IDs
};

// The report of one dump: UsageError for a device the host does not have
// (naming those it has) or a phase that is not one of the words.
// `objects`: the kernel consumers' objects that the IDs serve.
report::CmListReport cm_list_report(const kernel::CmIdDump& dump, const CmListFilter& filter,
                                    const report::ConsumerObjects& objects = {});

// Dumps the host's IDs and reports them; dump_cm_ids()'s errors pass
// through (no RDMA netlink, permission).
report::CmListReport list_cm_ids(const CmListFilter& filter);

}  // namespace qps::ops
