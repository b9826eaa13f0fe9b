// explain's topics of the kernel's RDMA storage consumers: the numbers
// their log lines carry (blk-status, nvme-status, nvme-cm-status,
// srp-login-reject, iscsi-error) and their lines themselves (kernel-event),
// from src/decode/storage.hpp and src/decode/kernel_log.hpp.
#include <fmt/format.h>

#include "src/decode/kernel_consumer.hpp"
#include "src/decode/kernel_log.hpp"
#include "src/decode/storage.hpp"
#include "src/error.hpp"
#include "src/explain/parse.hpp"
#include "src/util/suggest.hpp"

namespace qps::explain::detail {

namespace {

struct CodeTopic {
    std::string_view topic;
    std::span<const decode::StorageCode> table;
    std::string_view prefix;   // the C names' prefix ("BLK_STS_" is in the names themselves)
    std::string_view defined;  // the header that defines them
};

const CodeTopic* code_topic(std::string_view topic)
{
    static const std::array<CodeTopic, 5> all{{
        {"blk-status", decode::blk_status_table, "", "blk_status_t, include/linux/blk_types.h (Linux 6.1)"},
        {"nvme-status", decode::nvme_status_table, "NVME_SC_", "NVME_SC_*, include/linux/nvme.h"},
        {"nvme-cm-status", decode::nvme_cm_status_table, "NVME_RDMA_CM_",
         "enum nvme_rdma_cm_status, include/linux/nvme-rdma.h"},
        {"srp-login-reject", decode::srp_login_reject_table, "SRP_LOGIN_REJ_", "SRP_LOGIN_REJ_*, include/scsi/srp.h"},
        {"iscsi-error", decode::iscsi_error_table, "ISCSI_ERR_", "enum iscsi_err, include/scsi/iscsi_if.h"},
    }};
    for (const auto& t : all)
        if (t.topic == topic)
            return &t;
    return nullptr;
}

}  // namespace

bool is_storage_topic(std::string_view topic) { return code_topic(topic) || topic == "kernel-event"; }

Explanation storage_code(std::string_view topic, std::string_view value)
{
    const CodeTopic& t = *code_topic(topic);
    std::int64_t flags = 0;
    std::string given(value);
    // An NVMe status may carry its flag bits (DNR, MORE, CRD): the code is the rest.
    if (topic == "nvme-status")
        if (const auto n = number_of(value); n && *n >= 0) {
            flags = *n & decode::nvme_status_flags;
            given = std::to_string(*n & ~decode::nvme_status_flags);
        }
    const auto& entry = enum_entry<decode::StorageCode>(topic, given, t.table, t.prefix);
    Explanation e = start(topic, value);
    e.raw = entry.value;
    e.name = std::string(entry.name);
    e.facts.push_back({"meaning", "meaning", std::string(entry.meaning)});
    e.facts.push_back({"defined", "defined by", fmt::format("{}{} = {:#x} ({})", t.prefix, entry.name, entry.value,
                                                            entry.value)});
    if (flags != 0)
        e.facts.push_back({"flags", "flags",
                           fmt::format("{}{}{}", (flags & 0x4000) ? "DNR (do not retry) " : "",
                                       (flags & 0x2000) ? "MORE " : "",
                                       (flags & 0x1800) ? fmt::format("CRD {}", (flags >> 11) & 3) : "")});
    if (topic == "blk-status")
        e.facts.push_back({"numbering", "numbering", std::string(decode::blk_status_renumbered)});
    return e;
}

Explanation kernel_event(std::string_view value)
{
    const std::string id(trim(value));
    const decode::KernelLogEvent* ev = decode::find_kernel_log_event(id);
    if (!ev) {
        std::vector<std::string> names;
        for (const auto& k : decode::kernel_log_events)
            names.emplace_back(k.id);
        throw UsageError(util::unknown_name_message("kernel-event", id, names, "events are"));
    }
    Explanation e = start("kernel-event", value);
    e.name = std::string(ev->id);
    const auto* consumer = decode::find_kernel_consumer(ev->consumer);
    e.facts.push_back({"consumer", "printed by", consumer ? std::string(consumer->what) : std::string(ev->consumer)});
    e.facts.push_back({"meaning", "meaning", std::string(ev->meaning)});
    e.facts.push_back({"format", "format", fmt::format("\"{}\" ({})", ev->format, ev->where)});
    e.checks.emplace_back(ev->next);
    return e;
}

std::vector<std::string> storage_value_names(std::string_view topic)
{
    std::vector<std::string> out;
    if (topic == "kernel-event") {
        for (const auto& k : decode::kernel_log_events)
            out.emplace_back(k.id);
    } else if (const CodeTopic* t = code_topic(topic)) {
        for (const auto& c : t->table)
            out.emplace_back(c.name);
    }
    return out;
}

}  // namespace qps::explain::detail
