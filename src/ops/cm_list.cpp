#include "src/ops/cm_list.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/cm_state.hpp"
#include "src/error.hpp"
#include "src/host/pid_namespace.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::ops {

report::CmListReport cm_list_report(const kernel::CmIdDump& dump, const CmListFilter& f,
                                    const report::ConsumerObjects& objects)
{
    if (!f.device.empty() && std::find(dump.devices.begin(), dump.devices.end(), f.device) == dump.devices.end())
        throw UsageError(verbs::unknown_device_message(f.device, dump.devices));
    const auto& words = decode::cm_phase_words;
    if (!f.phase.empty() && std::find(words.begin(), words.end(), f.phase) == words.end())
        throw UsageError(fmt::format("--state: '{}' is not one of {}", f.phase, fmt::join(words, ", ")));
    report::CmListReport r;
    r.host_total = dump.ids.size();
    r.filtered = !f.device.empty() || !f.phase.empty() || f.pid;
    for (const auto& c : dump.ids) {
        if (!f.device.empty() && c.dev_name != f.device)
            continue;
        if (f.pid && c.pid != f.pid)
            continue;
        report::CmIdReport id = report::cm_id_report(c, objects);
        if (!f.phase.empty() && id.phase != f.phase)
            continue;
        r.ids.push_back(std::move(id));
    }
    return r;
}

report::CmListReport list_cm_ids(const CmListFilter& filter)
{
    auto r = cm_list_report(kernel::dump_cm_ids(), filter, report::read_consumer_objects());
    r.nested_pid_ns = host::in_nested_pid_namespace();
    return r;
}

}  // namespace qps::ops
