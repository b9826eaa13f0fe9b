#include "formatters/link_fields.hpp"

#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"

namespace qps::fmt_out {

void render_link_header(const report::LinkHeader& h, Printer& p)
{
    using u64 = std::uint64_t;
    p.field("role", "role", h.role);
    p.field("peer", "peer", h.peer);
    p.field("op", "op", h.op);
    p.field("transport", "transport", h.transport);
    p.field("device", "device", h.device);
    p.field("port", "port", u64{h.port});
    p.field("gid_index", "GID index", u64{h.gid_index});
    p.field("gid_choice", "GID choice", h.gid_why);
    const auto mtu = decode::mtu_from_bytes(h.mtu_bytes);
    p.field("path_mtu", "path MTU", mtu ? decode::mtu(*mtu) : decode::unknown_value(h.mtu_bytes, "bytes"));
    p.field("inline", "inline", h.inline_used);
    p.field("inline_max_bytes", "inline up to (bytes)", u64{h.inline_max});
    if (h.reads_in_flight)
        p.field("reads_in_flight", "RDMA reads in flight", u64{*h.reads_in_flight});
    if (h.ack_timeout)
        p.field("ack_timeout", "local ACK timeout", decode::local_ack_timeout(static_cast<int>(*h.ack_timeout)));
    if (h.retry_cnt)
        p.field("retry_cnt", "retry count", decode::retry_cnt(static_cast<int>(*h.retry_cnt)));
}

void render_link_threads(const report::LinkHeader& h, Printer& p, std::string_view label)
{
    p.field("threads", label, u64{h.threads});
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

}  // namespace qps::fmt_out
