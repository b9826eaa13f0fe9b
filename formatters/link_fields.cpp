#include "formatters/link_fields.hpp"

#include <fmt/format.h>

#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/decode/tos.hpp"

namespace qps::formatters {

void render_link_header(const report::LinkHeader& h, Printer& p)
{
    using u64 = std::uint64_t;
    p.field("role", "role", h.role);
    p.field("peer", "peer", h.peer);
    p.field("op", "op", h.op);
    p.field("transport", "transport", h.transport);
    p.field("connection", "connection", h.connection);
    if (h.connection == "rdma_cm") {
        p.field("cm_local", "rdma_cm local address", h.cm_local);
        p.field("cm_remote", "rdma_cm remote address", h.cm_remote);
        Table events{{{"event", "EVENT"}, {"status", "STATUS"}, {"ms", "AFTER ms"}}, {}};
        for (const auto& e : h.cm_events)
            events.rows.push_back({e.event, e.status, Scaled{e.ms, 1, 1}});
        p.table("cm_events", "rdma_cm events of the first QP (ms: after its step began)", events);
    }
    p.field("device", "device", h.device);
    p.field("port", "port", u64{h.port});
    p.field("gid_index", "GID index", u64{h.gid_index});
    p.field("gid_choice", "GID choice", h.gid_why);
    const auto mtu = decode::mtu_from_bytes(h.mtu_bytes);
    p.field("path_mtu", "path MTU", mtu ? decode::mtu(*mtu) : decode::unknown_value(h.mtu_bytes, "bytes"));
    p.field("inline", "inline", h.inline_used);
    p.field("inline_max_bytes", "inline up to (bytes)", u64{h.inline_max});
    p.field("traffic_class", "traffic class", std::uint64_t{h.traffic_class});
    if (h.traffic_class)
        p.note(fmt::format("  ({})", decode::traffic_class_text(static_cast<int>(h.traffic_class))));
    p.field("sl", "service level", std::uint64_t{h.sl});
    p.field("flow_label", "flow label", std::uint64_t{h.flow_label});
    p.field("pkey_index", "P_Key index", std::uint64_t{h.pkey_index});
    if (h.reads_in_flight)
        p.field("reads_in_flight", h.op == "read" ? "RDMA reads in flight" : "RDMA atomics in flight",
                u64{*h.reads_in_flight});
    if (h.ack_timeout)
        p.field("ack_timeout", "local ACK timeout", decode::local_ack_timeout(static_cast<int>(*h.ack_timeout)));
    if (h.retry_cnt)
        p.field("retry_cnt", "retry count", decode::retry_cnt(static_cast<int>(*h.retry_cnt)));
    if (h.rnr_retry)
        p.field("rnr_retry", "RNR retry count", decode::rnr_retry(static_cast<int>(*h.rnr_retry)));
    if (h.min_rnr_timer)
        p.field("min_rnr_timer", "RNR NAK timer", decode::rnr_timer(static_cast<int>(*h.min_rnr_timer)));
}

void render_link_threads(const report::LinkHeader& h, Printer& p, std::string_view label)
{
    p.field("threads", label, std::uint64_t{h.threads});
    if (!h.cpus.empty()) {
        ListScope cpus(p, "cpus", "this side's threads pinned to CPUs");
        for (int c : h.cpus)
            p.item(std::int64_t{c});
    }
}

void render_link_length(const report::LinkHeader& h, Printer& p, std::string_view what)
{
    if (h.duration_s)
        p.field("duration_s", "measured seconds per size", *h.duration_s);
    else
        p.field("iterations", what, std::uint64_t{h.iterations});
}

}  // namespace qps::formatters
