#include "formatters/srq.hpp"

#include <cstdint>

#include "formatters/qp.hpp"
#include "src/decode/decode.hpp"

namespace qps::formatters {

using u64 = std::uint64_t;

void render_srq(const report::SrqReport& s, Printer& p)
{
    p.field("id", "SRQ", u64{s.id});
    p.field("device", "device", s.device);
    p.field("max_wr", "max_wr (depth)", u64{s.max_wr});
    p.field("max_sge", "max_sge", u64{s.max_sge});
    p.field("limit", "srq_limit", u64{s.limit});
    if (s.xrcd) {
        p.field("xrcd", "XRC domain (file)", *s.xrcd);
        p.field("srq_num", "XRC SRQ number (senders name it)", decode::hex_number(s.srq_num.value_or(0)));
    }
    if (s.limit == 0)
        p.note("srq_limit 0: SRQ_LIMIT_REACHED is not armed (never armed, or it fired): 'qp srq modify ID --limit "
               "N' arms it");
    p.field("posted", "receives posted", u64{s.posted});
    p.field("consumed", "taken by messages", u64{s.consumed});
    render_held_events(s.events, p);
    {
        ListScope list(p, "qps", s.qps.empty() ? "QPs: none" : "QPs taking their receives from it");
        for (const auto qpn : s.qps)
            p.item(decode::hex_number(qpn));
    }
}

void render_xrcd(const ops::XrcdOutcome& x, Printer& p)
{
    p.field("device", "device", x.device);
    p.field("path", "XRC domain (file)", x.path);
    {
        ListScope list(p, "qps", x.qps.empty() ? "xrc-recv QPs in it: none" : "xrc-recv QPs in it");
        for (const auto qpn : x.qps)
            p.item(decode::hex_number(qpn));
    }
    ListScope list(p, "srqs", x.srqs.empty() ? "XRC SRQs in it: none" : "XRC SRQs in it");
    for (const auto id : x.srqs)
        p.item(u64{id});
}

void render_srq_destroy(const ops::SrqDestroyOutcome& o, Printer& p)
{
    {
        ListScope list(p, "destroyed", "destroyed");
        for (const auto id : o.destroyed)
            p.field("", "SRQ", u64{id});
    }
    p.field("holder_exits", "holder exits", o.holder_exits);
}

}  // namespace qps::formatters
