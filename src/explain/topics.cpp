#include "src/explain/topics.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/cm.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/explain/parse.hpp"
#include "src/util/suggest.hpp"
#include "src/util/text.hpp"

namespace qps::explain {

using util::trim;

using namespace detail;

namespace {

constexpr std::array<TopicInfo, 30> topic_table{{
    {"wc-status", "a work completion's status (ibv_wc_status)", "0-23 or a name such as RETRY_EXC_ERR"},
    {"wc-opcode", "a work completion's opcode (ibv_wc_opcode)", "a number or a name such as RDMA_WRITE"},
    {"qp-state", "a QP state (ibv_qp_state)", "0-7 or RESET, INIT, RTR, RTS, SQD, SQE, ERR, UNKNOWN"},
    {"port-state", "a port's logical state (ibv_port_state)", "0-5 or a name such as ACTIVE"},
    {"phys-state", "a port's physical state (IBA PortPhysicalState)", "0-7 or a name such as LINK_UP"},
    {"mtu", "an MTU enum (ibv_mtu) or its size in bytes", "1-5, or 256, 512, 1024, 2048, 4096"},
    {"rate", "an address handle's static rate (ibv_rate)", "0-23, a name such as 100_GBPS, or Gb/s such as 100G"},
    {"width", "a port's active width code (IBA)", "1, 2, 4, 8, 16 or 1X, 4X, 8X, 12X, 2X"},
    {"speed", "a port's active speed code (IBA, with the extended speeds)", "a code or SDR ... XDR"},
    {"timeout", "the local ACK timeout (ibv_qp_attr.timeout)", "a code 0-31, or a duration such as 67ms"},
    {"rnr-timer", "the RNR NAK timer (ibv_qp_attr.min_rnr_timer)", "a code 0-31, or a duration such as 1.28ms"},
    {"retry-cnt", "transport retries after the first attempt (ibv_qp_attr.retry_cnt)", "0-7"},
    {"rnr-retry", "RNR retries (ibv_qp_attr.rnr_retry); 7 means infinite", "0-7"},
    {"qp-attr-mask", "an ibv_modify_qp attribute mask", "a number (0x12d81) or names joined by |"},
    {"access", "memory region or QP access flags (ibv_access_flags)", "a number or names such as LOCAL_WRITE|REMOTE_READ"},
    {"port-cap", "a port's capability mask (ibv_port_attr.port_cap_flags)", "a number or names joined by |"},
    {"port-cap2", "a port's second capability mask (port_cap_flags2)", "a number or names joined by |"},
    {"device-cap", "a device's capability flags (device_cap_flags_ex)", "a number or names joined by |"},
    {"gid", "a GID: its kind, IPv4 address, subnet prefix and interface ID", "an IPv6-form GID such as ::ffff:10.0.0.1"},
    {"errno", "an errno from a verbs or rdma_cm call (with --verb: what it means there)",
     "1-133, a name such as EINVAL, or its text such as \"Invalid argument\""},
    {"cm-event", "an rdma_cm event (rdma_cm_event_type) and what its status means",
     "0-19, a name such as ADDR_ERROR, or the kernel's words such as \"address error\""},
    {"cm-reject", "an IB CM reject reason: RDMA_CM_EVENT_REJECTED's status on InfiniBand and RoCE",
     "1-33 or 35, or a name such as INVALID_SERVICE_ID"},
    {"vendor-err", "a completion's vendor error (ibv_wc.vendor_err), where a public source documents it",
     "a number; --vendor picks the provider"},
    {"mlx5-syndrome", "an mlx5 CQE error syndrome (UCX's synd, the kernel's syndrome)", "0-255, e.g. 0x15"},
    {"blk-status", "a block-layer status (blk_status_t): nvme's \"failed nvme_keep_alive_end_io error=N\"",
     "0-17 or a name such as BLK_STS_IOERR"},
    {"nvme-status", "an NVMe status code a fabrics host logs (Connect, path errors); DNR and MORE bits allowed",
     "a number such as 881 or 0x371, or a name such as HOST_ABORTED_CMD"},
    {"nvme-cm-status", "an NVMe-oF RDMA reject status: nvme-rdma's \"Connect rejected: ... nvme status N\"",
     "1-9 or a name such as NO_RSC"},
    {"srp-login-reject", "an SRP login reject reason (ib_srp, ib_srpt)", "0x10000-0x10006 or a name such as CHANNEL_LIMIT_REACHED"},
    {"iscsi-error", "an iSCSI connection error (enum iscsi_err): \"detected conn error (N)\"",
     "1001-1022 or a name such as CONN_FAILED"},
    {"kernel-event", "a dmesg line of a kernel RDMA storage consumer (nvme-rdma, nvmet-rdma, rpcrdma, iSER, SRP)",
     "an event id such as nvme-error-recovery"},
}};

}  // namespace

namespace detail {

std::string upper(std::string_view s)
{
    std::string u(s);
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
    return u;
}

std::optional<std::int64_t> number_of(std::string_view s)
{
    s = trim(s);
    bool negative = false;
    if (!s.empty() && s[0] == '-') {
        negative = true;
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return negative ? -v : v;
}

Explanation start(std::string_view topic, std::string_view input)
{
    Explanation e;
    e.topic = topic;
    e.input = input;
    return e;
}

void out_of_range(std::string_view topic, std::string_view value)
{
    const auto it = std::find_if(topic_table.begin(), topic_table.end(),
                                 [&](const TopicInfo& t) { return t.name == topic; });
    throw UsageError(fmt::format("{} '{}': not a known value; valid: {}", topic, value,
                                 it == topic_table.end() ? std::string_view("?") : it->valid));
}

}  // namespace detail

namespace {

Explanation wc_status(std::string_view value)
{
    Explanation e = named<decode::WcStatusEntry>("wc-status", value, decode::wc_status_table, "IBV_WC_");
    e.facts.push_back({"meaning", "meaning", std::string(decode::wc_status_meaning(static_cast<int>(e.raw)))});
    e.checks = decode::wc_status_checks(static_cast<int>(e.raw));
    return e;
}

// A ';'-separated list of checks of the cm tables, one item each.
std::vector<std::string> checks_of(std::string_view list)
{
    std::vector<std::string> out;
    for (const auto& c : decode::split_checks(list))
        if (!trim(c).empty())
            out.emplace_back(trim(c));
    return out;
}

// A number, a name (with or without RDMA_CM_EVENT_; a space or '-' counts as
// '_', as Lustre's "ADDR ERROR" writes it), or the words of the kernel's
// rdma_event_msg() ("address error").
Explanation cm_event(std::string_view value)
{
    const std::string text(trim(value));
    const decode::CmEventInfo* entry = nullptr;
    if (!number_of(text)) {
        const std::string words = util::lower(text);
        for (const auto& e : decode::cm_events())
            if (const auto w = decode::cm_event_kernel_words(e.value); !w.empty() && w == words)
                entry = &e;
    }
    if (!entry) {
        std::string name = text;
        if (!number_of(name))
            std::replace_if(name.begin(), name.end(), [](char c) { return c == ' ' || c == '-'; }, '_');
        entry = &enum_entry<decode::CmEventInfo>("cm-event", name, decode::cm_events(), "RDMA_CM_EVENT_");
    }
    Explanation e = start("cm-event", value);
    e.raw = entry->value;
    e.name = std::string(entry->name);
    e.facts.push_back({"meaning", "meaning", std::string(entry->meaning)});
    e.facts.push_back({"failure", "failure",
                       entry->failure ? "yes: the step it ends failed" : "no"});
    if (const auto w = decode::cm_event_kernel_words(entry->value); !w.empty())
        e.facts.push_back({"kernel_words", "kernel's words", fmt::format("\"{}\" (rdma_event_msg)", w)});
    e.checks = checks_of(entry->checks);
    return e;
}

// A number or a name, with or without IB_CM_REJ_.
Explanation cm_reject(std::string_view value)
{
    const auto& entry = enum_entry<decode::CmRejectInfo>("cm-reject", value, decode::cm_rejects(), "IB_CM_REJ_");
    const auto events = decode::cm_events();
    const auto rejected = std::find_if(events.begin(), events.end(),
                                       [](const decode::CmEventInfo& ev) { return ev.name == "REJECTED"; });
    Explanation e = start("cm-reject", value);
    e.raw = entry.value;
    e.name = std::string(entry.name);
    e.facts.push_back({"meaning", "meaning", std::string(entry.meaning)});
    e.facts.push_back({"event", "carried by",
                       fmt::format("RDMA_CM_EVENT_REJECTED ({}), status = {} on InfiniBand and RoCE (iWARP's "
                                   "status is a negative errno instead: -ECONNREFUSED, -ECONNRESET)",
                                   rejected->value, entry.value)});
    e.checks = checks_of(decode::cm_reject_checks(entry.value));
    return e;
}

Explanation mtu(std::string_view value)
{
    const auto n = number_of(value);
    if (!n)
        out_of_range("mtu", value);
    std::optional<int> code;
    if (*n >= 1 && *n <= 5)
        code = static_cast<int>(*n);
    else if (const auto m = decode::mtu_from_bytes(static_cast<std::uint64_t>(*n)))
        code = *m;
    if (!code)
        out_of_range("mtu", value);
    Explanation e = start("mtu", value);
    e.raw = *code;
    e.name = fmt::format("{} bytes", 128 << *code);
    e.facts.push_back({"enum", "ibv_mtu", fmt::format("IBV_MTU_{} = {}", 128 << *code, *code)});
    return e;
}

Explanation timer(std::string_view topic, std::string_view value, const Context& c)
{
    const bool ack = topic == "timeout";
    const decode::ParsedCode p = ack ? decode::parse_timeout(value) : decode::parse_rnr_timer(value);
    if (!p.ok)
        throw UsageError(fmt::format("{} '{}': {}", topic, value, p.error));
    Explanation e = start(topic, value);
    e.raw = p.code;
    const auto d = ack ? decode::local_ack_timeout(p.code) : decode::rnr_timer(p.code);
    e.name = d.value ? decode::human_duration_us(ack ? *d.value : *d.value * 1000) : *d.name;
    if (p.from_duration)
        e.facts.push_back({"nearest_code", "nearest code", p.summary});
    if (ack) {
        e.facts.push_back({"formula", "formula", p.code == 0 ? "code 0 disables the timer: the sender waits forever"
                                                             : fmt::format("4.096 µs × 2^{}", p.code)});
        if (c.retry_cnt) {
            const auto wait = decode::retry_exceeded_wait_us(p.code, *c.retry_cnt);
            e.facts.push_back({"retry_exceeded_after", "retry exceeded after",
                               wait ? fmt::format("{} ({} attempts × the timeout; nominal, a lower bound)",
                                                  decode::human_duration_us(*wait), *c.retry_cnt + 1)
                                    : "never: the timer is off"});
        }
    } else if (c.rnr_retry) {
        const auto wait = decode::rnr_exceeded_wait_ms(p.code, *c.rnr_retry);
        e.facts.push_back({"rnr_retry_exceeded_after", "RNR retry exceeded after",
                           wait ? decode::human_duration_us(*wait * 1000) : "never: rnr-retry 7 retries forever"});
    }
    return e;
}

Explanation retries(std::string_view topic, std::string_view value)
{
    const auto n = number_of(value);
    if (!n || *n < 0 || *n > 7)
        out_of_range(topic, value);
    Explanation e = start(topic, value);
    e.raw = *n;
    if (topic == "rnr-retry" && *n == 7) {
        e.name = "infinite";
        e.facts.push_back({"meaning", "meaning", "7 retries forever on RNR NAKs (IBA 9.7.5.2.8)"});
    } else {
        e.name = fmt::format("{} retr{}", *n, *n == 1 ? "y" : "ies");
        e.facts.push_back({"meaning", "meaning",
                           topic == "retry-cnt"
                               ? fmt::format("{} attempts in all before IBV_WC_RETRY_EXC_ERR (7 is 7 retries, "
                                             "not infinite, in the spec; rxe retries forever at 7)",
                                             *n + 1)
                               : fmt::format("{} attempts in all before IBV_WC_RNR_RETRY_EXC_ERR", *n + 1)});
    }
    return e;
}

Explanation rate(std::string_view value)
{
    const decode::RateEntry* entry = nullptr;
    if (const auto n = number_of(value)) {
        entry = decode::find_entry(decode::static_rate_table, *n);
    } else {
        // "100_GBPS", "IBV_RATE_100_GBPS", "100G", "100Gb/s", "2.5G"
        std::string u = upper(trim(value));
        if (u.rfind("IBV_RATE_", 0) == 0)
            u.erase(0, 9);
        for (const auto& r : decode::static_rate_table)
            if (r.name == u)
                entry = &r;
        if (!entry) {
            for (const char* suffix : {"GB/S", "GBPS", "G"})
                if (u.size() > std::string_view(suffix).size() && u.ends_with(suffix)) {
                    u.erase(u.size() - std::string_view(suffix).size());
                    break;
                }
            double gbps = 0;
            const auto [end, ec] = std::from_chars(u.data(), u.data() + u.size(), gbps);
            if (ec == std::errc() && end == u.data() + u.size())
                for (const auto& r : decode::static_rate_table)
                    if (r.gbps == gbps && r.value != IBV_RATE_MAX)
                        entry = &r;
        }
    }
    if (!entry)
        out_of_range("rate", value);
    Explanation e = start("rate", value);
    e.raw = entry->value;
    if (entry->value == IBV_RATE_MAX) {
        e.name = "MAX";
        e.facts.push_back({"meaning", "meaning", "no limit: the QP sends at the port's active rate"});
        return e;
    }
    e.name = fmt::format("{:g} Gb/s", entry->gbps);
    e.facts.push_back({"enum", "ibv_rate", fmt::format("IBV_RATE_{} = {}", entry->name, entry->value)});
    e.facts.push_back({"mbps", "ibv_rate_to_mbps",
                       fmt::format("{} Mb/s (the signalling rate; ibv_rate_to_mult: {:g}× 2.5 Gb/s)", entry->mbps,
                                   entry->gbps / 2.5)});
    e.facts.push_back({"meaning", "meaning",
                       "the most the QP may inject into the path (IBA static rate); above the port's rate it has no "
                       "effect, below it throttles the QP"});
    return e;
}

}  // namespace

std::span<const TopicInfo> topics() { return topic_table; }

std::vector<std::string> value_names(std::string_view topic)
{
    const auto of = [](const auto& table, std::string_view prefix = "") {
        std::vector<std::string> out;
        for (const auto& e : table)
            out.push_back(std::string(prefix) + std::string(e.name));
        return out;
    };
    if (topic == "wc-status")
        return of(decode::wc_status_table);
    if (topic == "wc-opcode")
        return of(decode::wc_opcode_table);
    if (topic == "qp-state")
        return of(decode::qp_state_table);
    if (topic == "port-state")
        return of(decode::port_state_table);
    if (topic == "phys-state")
        return of(decode::phys_state_table);
    if (topic == "rate")
        return of(decode::static_rate_table);
    if (topic == "width")
        return of(decode::width_table);
    if (topic == "speed")
        return of(decode::speed_table);
    if (topic == "mtu")
        return {"256", "512", "1024", "2048", "4096"};
    if (is_mask_topic(topic))
        return mask_names(topic);
    if (topic == "errno")
        return errno_names();
    if (topic == "cm-event")
        return of(decode::cm_events());
    if (topic == "cm-reject")
        return of(decode::cm_rejects());
    if (topic == "mlx5-syndrome" || topic == "vendor-err")
        return vendor_value_names(topic);
    if (is_storage_topic(topic))
        return storage_value_names(topic);
    return {};
}

namespace {

Explanation explain_topic_value(std::string_view topic, std::string_view value, const Context& context)
{
    if (topic == "wc-status")
        return wc_status(value);
    if (topic == "wc-opcode")
        return named<decode::EnumEntry<int>>(topic, value, decode::wc_opcode_table, "IBV_WC_");
    if (topic == "qp-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::qp_state_table, "IBV_QPS_");
    if (topic == "port-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::port_state_table, "IBV_PORT_");
    if (topic == "phys-state")
        return named<decode::EnumEntry<int>>(topic, value, decode::phys_state_table, "");
    if (topic == "mtu")
        return mtu(value);
    if (topic == "width") {
        Explanation e = named<decode::WidthEntry>(topic, value, decode::width_table, "");
        e.facts.push_back({"lanes", "lanes", std::to_string(decode::find_entry(decode::width_table, e.raw)->lanes)});
        return e;
    }
    if (topic == "speed") {
        Explanation e = named<decode::SpeedEntry>(topic, value, decode::speed_table, "");
        const auto* s = decode::find_entry(decode::speed_table, e.raw);
        e.facts.push_back({"lane_gbps", "per lane", fmt::format("{:g} Gb/s signalling, {:.4g} Gb/s of data",
                                                               s->lane_gbps, s->lane_data_gbps)});
        return e;
    }
    if (topic == "timeout" || topic == "rnr-timer")
        return timer(topic, value, context);
    if (topic == "retry-cnt" || topic == "rnr-retry")
        return retries(topic, value);
    if (topic == "rate")
        return rate(value);
    if (is_mask_topic(topic))
        return mask(topic, value);
    if (topic == "gid")
        return gid(value);
    if (topic == "errno")
        return errno_value(value, context);
    if (topic == "cm-event")
        return cm_event(value);
    if (topic == "cm-reject")
        return cm_reject(value);
    if (topic == "vendor-err")
        return vendor_err(value, context);
    if (topic == "mlx5-syndrome")
        return mlx5_syndrome(value);
    if (topic == "kernel-event")
        return kernel_event(value);
    if (is_storage_topic(topic))
        return storage_code(topic, value);
    std::vector<std::string> names;
    for (const auto& t : topic_table)
        names.emplace_back(t.name);
    throw UsageError(util::unknown_name_message("topic", topic, names, "topics are"));
}

}  // namespace

Explanation explain(std::string_view topic, std::string_view value, const Context& context)
{
    Explanation e = explain_topic_value(topic, value, context);
    // A value given by name (or as a duration, a size) shows its number, as
    // a number shows its name. A GID is its own number.
    if (topic != "gid" && topic != "kernel-event" && !detail::number_of(detail::trim(value)))
        e.number = is_mask_topic(topic) ? fmt::format("{:#x}", static_cast<std::uint64_t>(e.raw)) : std::to_string(e.raw);
    return e;
}

}  // namespace qps::explain
