#include "formatters/bandwidth.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "formatters/link_fields.hpp"

namespace qps::formatters {

namespace {

using u64 = std::uint64_t;

struct Sides {
    const report::SideStats* client;
    const report::SideStats* server;
};

Sides sides_of(const report::BwReport& r, const report::BwSizeResult& s)
{
    const report::SideStats* peer = s.peer ? &*s.peer : nullptr;
    return r.role == "client" ? Sides{&s.local, peer} : Sides{peer, &s.local};
}

std::string op_words(const std::string& op)
{
    return op == "send"    ? "sends"
           : op == "write" ? "RDMA writes"
           : op == "fadd"  ? "8-byte fetch-and-adds"
           : op == "cas"   ? "8-byte compare-and-swaps"
                           : "RDMA reads";
}

Value percent(const report::SideStats* s) { return s ? Value{Scaled{s->cpu_percent, 1, 1}} : Value{}; }

// The messages one side posts, as it measured them (tx) and, for sends, as
// the other side received them (rx).
Table direction_table(const report::BwReport& r, bool client_posts)
{
    const report::RateUnit& unit = report::rate_unit(r.unit);
    const bool sends = r.op == "send";
    std::vector<Column> cols{{"size_bytes", "BYTES"},
                             {"messages", "MESSAGES"},
                             {"measured_s", "SECONDS"},
                             {"bytes_per_s", "AVG"},
                             {"peak_bytes_per_s", "PEAK"},
                             {"min_bytes_per_s", "MIN"},
                             {"windows", "WINDOWS"},
                             {"messages_per_s", "MSG/s"}};
    if (sends)
        cols.push_back({"received_bytes_per_s", "RECEIVED AVG"});
    if (r.srq)
        cols.push_back({"srq_qps_served", "QPs ONE SRQ SERVED"});
    if (r.threads > 1)
        cols.push_back({"overlap_s", "ALL THREADS s"});
    cols.push_back({"poster_cpu_percent", "POSTER CPU %"});
    cols.push_back({"peer_cpu_percent", "PEER CPU %"});
    cols.push_back({"verified", "DATA CHECK"});
    Table t{cols, {}};
    for (const auto& s : r.sizes) {
        const Sides sides = sides_of(r, s);
        const report::SideStats* poster = client_posts ? sides.client : sides.server;
        const report::SideStats* other = client_posts ? sides.server : sides.client;
        if (!poster || !poster->tx)
            continue;
        const report::DirectionStats& d = *poster->tx;
        std::vector<Value> row{u64{s.local.size},
                               u64{d.messages},
                               Scaled{d.seconds, 1, 3},
                               Scaled{d.bytes_per_s, unit.bytes_per_s},
                               Scaled{d.peak_bytes_per_s, unit.bytes_per_s},
                               Scaled{d.min_bytes_per_s, unit.bytes_per_s},
                               u64{d.windows},
                               Scaled{d.messages_per_s, 1, 0}};
        if (sends)
            row.push_back(other && other->rx ? Value{Scaled{other->rx->bytes_per_s, unit.bytes_per_s}} : Value{});
        if (r.srq)
            row.push_back(other && other->srq ? Value{u64{other->srq->served}} : Value{});
        if (r.threads > 1)
            row.push_back(Scaled{d.overlap_seconds, 1, 3});
        row.push_back(percent(poster));
        row.push_back(percent(other));
        // Reads land on the poster; sends and writes on the other side.
        // Who checked: where the data lands (a read's: the poster), or for
        // the atomics the poster, against the target's counters.
        const report::SideStats* destination = r.one_sided ? poster : other;
        row.push_back(destination ? Value{destination->verified} : Value{std::string("unknown: no report")});
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table total_table(const report::BwReport& r)
{
    const report::RateUnit& unit = report::rate_unit(r.unit);
    Table t{{{"size_bytes", "BYTES"}, {"bytes_per_s", "AVG"}, {"messages_per_s", "MSG/s"}}, {}};
    for (const auto& s : r.sizes) {
        const Sides sides = sides_of(r, s);
        if (!sides.client || !sides.server || !sides.client->tx || !sides.server->tx)
            continue;
        t.rows.push_back({u64{s.local.size}, Scaled{sides.client->tx->bytes_per_s + sides.server->tx->bytes_per_s, unit.bytes_per_s},
                          Scaled{sides.client->tx->messages_per_s + sides.server->tx->messages_per_s, 1, 0}});
    }
    return t;
}

// bw --threads: what each thread of a posting side measured.
Table threads_table(const report::BwReport& r)
{
    const report::RateUnit& unit = report::rate_unit(r.unit);
    Table t{{{"size_bytes", "BYTES"},
             {"side", "SIDE"},
             {"thread", "THREAD"},
             {"cpu", "CPU"},
             {"messages", "MESSAGES"},
             {"measured_s", "SECONDS"},
             {"bytes_per_s", "AVG"},
             {"peak_bytes_per_s", "PEAK"},
             {"min_bytes_per_s", "MIN"},
             {"messages_per_s", "MSG/s"},
             {"cpu_percent", "CPU %"},
             {"abort_reason", "ENDED EARLY"}},
            {}};
    for (const auto& s : r.sizes) {
        const Sides sides = sides_of(r, s);
        for (const auto* side : {sides.client, sides.server}) {
            if (!side)
                continue;
            for (const auto& th : side->threads) {
                if (!th.tx)
                    continue;
                const report::DirectionStats& d = *th.tx;
                t.rows.push_back({u64{s.local.size}, std::string(side == sides.client ? "client" : "server"),
                                  u64{th.index}, th.cpu >= 0 ? Value{std::int64_t{th.cpu}} : Value{nullptr},
                                  u64{d.messages}, Scaled{d.seconds, 1, 3}, Scaled{d.bytes_per_s, unit.bytes_per_s},
                                  Scaled{d.peak_bytes_per_s, unit.bytes_per_s},
                                  Scaled{d.min_bytes_per_s, unit.bytes_per_s}, Scaled{d.messages_per_s, 1, 0},
                                  Scaled{th.cpu_percent, 1, 1},
                                  th.aborted ? Value{th.abort_reason} : Value{}});
            }
        }
    }
    return t;
}

}  // namespace

std::string bw_progress_line(std::uint32_t size, double seconds, double bytes_per_s, const std::string& unit)
{
    const report::RateUnit& u = report::rate_unit(unit);
    return fmt::format("size {} B: {:.1f} s measured, {:.2f} {}", size, seconds, bytes_per_s / u.bytes_per_s, u.name);
}

void render_bw(const report::BwReport& r, Printer& p)
{
    {
        ObjectScope test(p, "test",
                         fmt::format("bw {} over {} ({}), {}{} QP{}, {}", r.op, r.transport, r.role,
                                     r.threads > 1 ? fmt::format("{} threads x ", r.threads) : "", r.qps,
                                     r.qps == 1 ? "" : "s", r.bidir ? "bidirectional" : "unidirectional"));
        render_link_header(r, p);
        p.field("bidir", "bidirectional", r.bidir);
        render_link_threads(r, p, "worker threads");
        p.field("qps", r.threads > 1 ? "QPs per thread" : "QPs", u64{r.qps});
        p.field("tx_depth", "send queue depth per QP", u64{r.tx_depth});
        p.field("srq", "receives from one SRQ per receiving side (--srq)", r.srq);
        p.field("rx_depth", r.srq ? "the SRQ's depth, shared by all QPs (send op)" : "receive queue depth per QP (send op)",
                u64{r.rx_depth});
        p.field("post_list", "WRs per post", u64{r.post_list});
        p.field("cq_mod", "one signalled WR in", u64{r.cq_mod});
        render_link_length(r, p, "measured messages per QP and size");
        p.field("warmup", "warm-up messages per QP (not measured)", u64{r.warmup});
        // (The cool-down keeps the queue full past the measured span.)
        p.field("cooldown_max_messages", "cool-down messages per QP (not measured)", u64{r.tx_depth});
        p.field("window_ms", "peak/min window (ms)", r.window_ms);
        p.field("unit", "unit (text; JSON has bytes/s and messages/s)", r.unit);
        p.field("clock", "clock", r.clock_source);
        p.field("aborted", "aborted", r.aborted);
        if (r.aborted)
            p.field("abort_reason", "abort reason", r.abort_reason);
        p.field("verify_failed", "data check failed", r.verify_failed);
    }
    const std::string ops = op_words(r.op);
    const bool read = r.op == "read";
    auto heading = [&](bool client_posts) {
        const std::string poster = client_posts ? "client" : "server";
        const std::string other = client_posts ? "server" : "client";
        if (r.op == "fadd" || r.op == "cas")
            return fmt::format("{} posts {} on the {}'s counters, rates in {}", poster, ops, other, r.unit);
        return fmt::format("{} posts {} (data {} → {}), rates in {}", poster, ops, read ? other : poster,
                           read ? poster : other, r.unit);
    };
    p.table("client_posts", heading(true), direction_table(r, true));
    if (r.bidir) {
        p.table("server_posts", heading(false), direction_table(r, false));
        p.table("total", fmt::format("both directions together, in {}", r.unit), total_table(r));
    }
    if (r.threads > 1)
        p.table("threads",
                fmt::format("each thread of the posting sides, in {}; the tables above are their total over the "
                            "span from the first thread's start to the last one's end",
                            r.unit),
                threads_table(r));
}

}  // namespace qps::formatters
