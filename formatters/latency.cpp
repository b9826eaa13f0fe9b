#include "formatters/latency.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "formatters/link_fields.hpp"

namespace qps::formatters {

namespace {

using u64 = std::uint64_t;

Nanoseconds ns(double v) { return Nanoseconds{v}; }

// The columns and values of one figure's statistics.
const std::vector<Column>& spread_columns()
{
    static const std::vector<Column> columns{{"min_ns", "MIN µs"},   {"p50_ns", "P50"},       {"p90_ns", "P90"},
                                             {"p99_ns", "P99"},      {"p99_9_ns", "P99.9"},   {"p99_99_ns", "P99.99"},
                                             {"max_ns", "MAX"},      {"mean_ns", "MEAN"},     {"stddev_ns", "STDEV"}};
    return columns;
}

// A row per size of one figure, after BYTES and the sample count (text
// shows µs, JSON nanoseconds: members *_ns); `more` adds a row's last
// columns.
template <class Pick, class More>
Table figure_table(const std::vector<report::SizeResult>& sizes, bool peer, const char* samples_heading,
                   std::vector<Column> more_columns, Pick pick, More more)
{
    Table t{{{"size_bytes", "BYTES"}, {"samples", samples_heading}}, {}};
    t.columns.insert(t.columns.end(), spread_columns().begin(), spread_columns().end());
    t.columns.insert(t.columns.end(), more_columns.begin(), more_columns.end());
    for (const auto& s : sizes) {
        const report::LatencyStats* st = peer ? (s.peer ? &*s.peer : nullptr) : &s.local;
        if (!st)
            continue;
        const report::Spread d = pick(*st);
        std::vector<Value> row{u64{st->size},        u64{d.samples},         ns(double(d.min_ns)),
                               ns(double(d.p50_ns)),  ns(double(d.p90_ns)),   ns(double(d.p99_ns)),
                               ns(double(d.p999_ns)), ns(double(d.p9999_ns)), ns(double(d.max_ns)),
                               ns(d.mean_ns),         ns(d.stddev_ns)};
        more(row, *st);
        t.rows.push_back(std::move(row));
    }
    return t;
}

// The round trip of each size.
Table stats_table(const std::vector<report::SizeResult>& sizes, bool peer, bool threads)
{
    std::vector<Column> more{{"measured_s", "SECONDS"}};
    if (threads)
        more.push_back({"samples_per_s", "SAMPLES/s"});
    more.push_back({"aborted", "ABORTED"});
    return figure_table(
        sizes, peer, "ITERATIONS", more, [](const report::LatencyStats& st) { return st.round_trip(); },
        [threads](std::vector<Value>& row, const report::LatencyStats& st) {
            row.push_back(st.seconds);
            if (threads)
                row.push_back(Scaled{st.messages_per_s(), 1, 0});
            row.push_back(st.aborted);
        });
}

// The loop period of each size (post to next post, perftest's sample),
// all pairs' samples together with --threads.
Table period_table(const std::vector<report::SizeResult>& sizes, bool peer)
{
    return figure_table(
        sizes, peer, "PERIODS", {}, [](const report::LatencyStats& st) { return st.period; },
        [](std::vector<Value>&, const report::LatencyStats&) {});
}

// ping-pong --threads: each pair's figures, both sides.
Table pairs_table(const report::PingPongReport& r)
{
    Table t{{{"size_bytes", "BYTES"},
             {"side", "SIDE"},
             {"thread", "PAIR"},
             {"cpu", "CPU"},
             {"samples", "ITERATIONS"},
             {"p50_ns", "P50 µs"},
             {"p99_ns", "P99"},
             {"max_ns", "MAX"},
             {"mean_ns", "MEAN"},
             {"measured_s", "SECONDS"},
             {"samples_per_s", "SAMPLES/s"},
             {"abort_reason", "ENDED EARLY"}},
            {}};
    for (const auto& s : r.sizes) {
        const std::string other = r.role == "client" ? "server" : "client";
        for (const auto& [side, st] : {std::pair{r.role, &s.local}, std::pair{other, s.peer ? &*s.peer : nullptr}}) {
            if (!st)
                continue;
            for (const auto& p : st->threads)
                t.rows.push_back({u64{p.size}, side, u64{p.thread}, p.cpu >= 0 ? Value{std::int64_t{p.cpu}} : Value{nullptr},
                                  u64{p.samples}, ns(double(p.p50_ns)), ns(double(p.p99_ns)), ns(double(p.max_ns)),
                                  ns(p.mean_ns), p.seconds, Scaled{p.messages_per_s(), 1, 0},
                                  p.aborted ? Value{p.abort_reason} : Value{}});
        }
    }
    return t;
}

void render_histograms(Printer& p, const std::vector<report::SizeResult>& sizes)
{
    const bool any = std::any_of(sizes.begin(), sizes.end(), [](const auto& s) { return !s.local.histogram.empty(); });
    if (!any)
        return;
    ListScope list(p, "histograms", "histograms (this side)");
    for (const auto& s : sizes) {
        ObjectScope one(p, "", fmt::format("size {} bytes", s.local.size));
        p.field("size_bytes", "size", u64{s.local.size});
        Table h{{{"low_ns", "FROM µs"}, {"high_ns", "TO µs"}, {"count", "COUNT"}, {"bar", ""}}, {}};
        u64 most = 1;
        for (const auto& b : s.local.histogram)
            most = std::max(most, b.count);
        for (const auto& b : s.local.histogram)
            h.rows.push_back({ns(double(b.low_ns)), ns(double(b.high_ns)), u64{b.count},
                              std::string(static_cast<std::size_t>(40.0 * double(b.count) / double(most) + 0.5), '#')});
        p.table("rows", "", h);
    }
}

}  // namespace

std::string progress_line(const report::SizeResult& s)
{
    return fmt::format("size {:>8} B: p50 {:.3f} µs, p99 {:.3f} µs, {} samples", s.local.size,
                       double(s.local.p50_ns) / 1000, double(s.local.p99_ns) / 1000, s.local.samples);
}

void render_ping_pong(const report::PingPongReport& r, Printer& p)
{
    {
        ObjectScope test(p, "test", fmt::format("ping-pong {} over {} ({}), {} latency{}", r.op, r.transport, r.role,
                                                r.one_way ? "one-way (half the round trip)" : "round-trip",
                                                r.threads > 1 ? fmt::format(", {} pairs at once", r.threads) : ""));
        render_link_header(r, p);
        p.field("one_way", "one-way (half the round trip)", r.one_way);
        if (r.srq) {
            ObjectScope srq(p, "srq", fmt::format("receives from one SRQ of depth {} shared by {} QP{} (--srq)",
                                                  r.srq->depth, r.srq->qps, r.srq->qps == 1 ? "" : "s"));
            p.field("depth", "depth (receives)", std::uint64_t{r.srq->depth});
            p.field("qps", "QPs on it", std::uint64_t{r.srq->qps});
        }
        render_link_threads(r, p, "pairs at once (threads)");
        render_link_length(r, p, "iterations per size");
        p.field("warmup", "warm-up iterations (not measured)", u64{r.warmup});
        p.field("clock", "clock", r.clock_source);
        p.field("clock_why", "clock choice", r.clock_why);
        p.field("clock_ticks_per_ns", "clock ticks per ns", r.clock_ticks_per_ns);
        p.field("clock_calibration_ms", "clock calibration span (ms)", r.clock_calibration_ms);
        p.field("clock_calibration_error_ppm", "clock calibration error (ppm)", r.clock_calibration_error_ppm);
        p.field("aborted", "aborted", r.aborted);
        if (r.aborted)
            p.field("abort_reason", "abort reason", r.abort_reason);
    }
    const std::string other = r.role == "client" ? "server" : "client";
    auto side = [&](const std::string& role) {
        const bool local = role == r.role;
        if (role == "server" && !r.server_measures()) {
            p.note(fmt::format("{} ({}): no figures: in a read or atomic test the server's NIC answers the client's "
                               "reads and atomics without the server's CPU, so only the client measures",
                               role, local ? "this side" : "the other side"));
            return;
        }
        if (!local && std::none_of(r.sizes.begin(), r.sizes.end(), [](const auto& s) { return s.peer.has_value(); }))
            return;
        const std::string pairs = r.threads > 1 ? fmt::format(", all {} pairs' samples together", r.threads) : "";
        const std::string half = r.one_way ? ", halved" : "";
        p.table(role,
                fmt::format("{} ({}), round trip{}: post of a message to its reply seen, in µs{}", role,
                            local ? "this side" : "the other side", half, pairs),
                stats_table(r.sizes, !local, r.threads > 1));
        p.table(role + "_loop_period",
                fmt::format("{} ({}), loop period{}: post of a message to the next post (perftest's sample), in µs{}",
                            role, local ? "this side" : "the other side", half, pairs),
                period_table(r.sizes, !local));
    };
    side(r.role);
    side(other);
    if (r.threads > 1)
        p.table("threads", "each pair (thread) on its own, latency in µs", pairs_table(r));
    if (std::any_of(r.sizes.begin(), r.sizes.end(), [](const auto& s) { return s.atomic_expected.has_value(); })) {
        Table t{{{"size_bytes", "BYTES"}, {"counter", "SERVER'S COUNTER"}, {"expected", "ATOMICS COMPLETED"},
                 {"ok", "EACH LANDED ONCE"}},
                {}};
        for (const auto& s : r.sizes)
            if (s.atomic_expected)
                t.rows.push_back({u64{s.local.size},
                                  s.peer && s.peer->atomic_counter ? Value(u64{*s.peer->atomic_counter}) : Value(nullptr),
                                  u64{*s.atomic_expected}, s.atomic_ok()});
        p.table("atomic_check",
                fmt::format("the server's counter after the size's {} (zeroed before it) against the atomics this "
                            "side completed, warm-up included",
                            r.op == "fadd" ? "fetch-and-adds of 1" : "compare-and-swaps (each i -> i + 1)"),
                t);
    }
    render_histograms(p, r.sizes);
}

}  // namespace qps::formatters
