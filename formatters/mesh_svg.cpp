#include "formatters/mesh_svg.hpp"
#include "src/util/outside_bytes.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <optional>
#include <vector>

namespace qps::fmt_out {

namespace {

constexpr const char* diagonal_fill = "#e0e0e0";
constexpr const char* failed_fill = "#303030";
constexpr const char* not_run_fill = "#a0a0a0";
constexpr const char* untested_fill = "#ffffff";

// XML text: a hostname or cause is bytes from outside, and XML allows
// neither control characters nor bytes that are not UTF-8, so it is shown
// as the text printer shows it, then escaped for XML.
std::string escaped(std::string_view bytes)
{
    std::string out;
    for (char c : util::escape_text(bytes)) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

// Good (0) to bad (1) as hue 120 (green) to 0 (red), in RGB.
std::string colour(double badness)
{
    badness = std::clamp(badness, 0.0, 1.0);
    const double hue = 120.0 * (1.0 - badness);
    // HSL with s = 0.75, l = 0.5
    const double c = 0.75, x = c * (1 - std::abs(std::fmod(hue / 60.0, 2.0) - 1)), m = 0.5 - c / 2;
    double r = 0, g = 0;
    if (hue < 60) {
        r = c;
        g = x;
    } else {
        r = x;
        g = c;
    }
    const auto byte = [m](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
    return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(0));
}

struct Cell {
    enum class Kind { untested, measured, failed, not_run } kind = Kind::untested;
    double value = 0;
    std::string cause;
};

std::string label_of(const mesh::MeshReport& r, std::uint32_t rank)
{
    std::string host = rank < r.ranks.size() ? r.ranks[rank].host : "";
    if (host.size() > 16)
        host = host.substr(0, 15) + "~";
    return fmt::format("r{} {}", rank, host);
}

}  // namespace

std::string mesh_svg(const mesh::MeshReport& r, mesh::Metric metric)
{
    const std::size_t n = r.ranks.size();
    std::vector<Cell> cells(n * n);
    const auto at = [&](std::uint32_t row, std::uint32_t col) -> Cell& { return cells[row * n + col]; };
    std::optional<double> lo, hi;
    const auto measured = [&](std::uint32_t row, std::uint32_t col, double v) {
        if (row >= n || col >= n)
            return;
        at(row, col) = {Cell::Kind::measured, v, {}};
        lo = lo ? std::min(*lo, v) : v;
        hi = hi ? std::max(*hi, v) : v;
    };
    for (const auto& p : r.results) {
        if (p.pair.a >= n || p.pair.b >= n)
            continue;
        if (p.status != mesh::PairStatus::ok) {
            const Cell c{p.status == mesh::PairStatus::failed ? Cell::Kind::failed : Cell::Kind::not_run, 0, p.cause};
            at(p.pair.a, p.pair.b) = c;
            at(p.pair.b, p.pair.a) = c;
            continue;
        }
        if (metric == mesh::Metric::bw) {
            if (p.bw_ab)
                measured(p.pair.a, p.pair.b, p.bw_ab->gbps);
            if (p.bw_ba)
                measured(p.pair.b, p.pair.a, p.bw_ba->gbps);
        } else if (const auto& lat = p.lat_a ? p.lat_a : p.lat_b) {
            measured(p.pair.a, p.pair.b, lat->p50_us);
            measured(p.pair.b, p.pair.a, lat->p50_us);
        }
    }

    const int cell = n <= 32 ? 28 : std::max(4, static_cast<int>(896 / n));
    const bool labels = cell >= 10;
    const int margin_left = labels ? 150 : 40, margin_top = labels ? 150 : 60, legend_h = 90;
    const int grid = cell * static_cast<int>(n);
    const int width = std::max(margin_left + grid + 40, 680), height = margin_top + grid + legend_h;
    const bool bw = metric == mesh::Metric::bw;
    const char* unit = bw ? "Gb/s" : "us";

    std::string out;
    auto o = std::back_inserter(out);
    fmt::format_to(o,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
                   "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
                   "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
                   width, height);
    fmt::format_to(o, "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">qpscope-mesh: {}, {} ranks</text>\n",
                   bw ? "bandwidth, Gb/s (row sends to column)" : "latency p50 one-way, us", n);
    fmt::format_to(o, "<text x=\"10\" y=\"38\">{} pairs, {} rounds run of {}{}</text>\n", r.results.size(), r.rounds_done,
                   r.schedule.rounds.size(), r.stopped.empty() ? "" : " (stopped early)");
    if (labels) {
        for (std::size_t i = 0; i < n; ++i) {
            const int pos = static_cast<int>(i) * cell + cell / 2;
            const std::string text = escaped(label_of(r, static_cast<std::uint32_t>(i)));
            fmt::format_to(o, "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                              "dominant-baseline=\"middle\">{}</text>\n",
                           margin_left - 4, margin_top + pos, text);
            fmt::format_to(o, "<text class=\"col-label\" transform=\"translate({},{}) rotate(-60)\">{}</text>\n",
                           margin_left + pos + 4, margin_top - 4, text);
        }
    }
    for (std::size_t row = 0; row < n; ++row)
        for (std::size_t col = 0; col < n; ++col) {
            const int x = margin_left + static_cast<int>(col) * cell, y = margin_top + static_cast<int>(row) * cell;
            const Cell& c = cells[row * n + col];
            std::string fill, title;
            const std::string from = escaped(label_of(r, static_cast<std::uint32_t>(row)));
            const std::string to = escaped(label_of(r, static_cast<std::uint32_t>(col)));
            if (row == col) {
                fill = diagonal_fill;
                title = from;
            } else if (c.kind == Cell::Kind::measured) {
                const double span = *hi - *lo;
                const double good = span > 0 ? (bw ? (c.value - *lo) / span : (*hi - c.value) / span) : 1.0;
                fill = colour(1.0 - good);
                title = fmt::format("{} {} {}: {:.2f} {}", from, bw ? "-&gt;" : "&lt;-&gt;", to, c.value, unit);
            } else if (c.kind == Cell::Kind::failed) {
                fill = failed_fill;
                title = fmt::format("{} &lt;-&gt; {}: failed: {}", from, to, escaped(c.cause));
            } else if (c.kind == Cell::Kind::not_run) {
                fill = not_run_fill;
                title = fmt::format("{} &lt;-&gt; {}: not run{}{}", from, to, c.cause.empty() ? "" : ": ",
                                    escaped(c.cause));
            } else {
                fill = untested_fill;
                title = fmt::format("{} &lt;-&gt; {}: not in the plan", from, to);
            }
            fmt::format_to(o, "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                              "stroke=\"#c0c0c0\" stroke-width=\"{}\"><title>{}</title></rect>\n",
                           x, y, cell, cell, fill, cell >= 10 ? "0.5" : "0", title);
            if (c.kind == Cell::Kind::failed && row != col && cell >= 8) {
                const int p = cell / 4;
                fmt::format_to(o,
                               "<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
                               x + p, y + p, x + cell - p, y + cell - p, x + cell - p, y + p, x + p, y + cell - p);
            }
        }

    // The legend: the scale between the run's best and worst, and the other kinds.
    const int ly = margin_top + grid + 25;
    fmt::format_to(o, "<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">");
    for (int stop = 0; stop <= 4; ++stop)
        fmt::format_to(o, "<stop offset=\"{}%\" stop-color=\"{}\"/>", stop * 25, colour(1.0 - stop / 4.0));
    fmt::format_to(o, "</linearGradient></defs>\n");
    fmt::format_to(o, "<rect x=\"10\" y=\"{}\" width=\"300\" height=\"14\" fill=\"url(#scale)\"/>\n", ly);
    if (lo && hi) {
        const double worst = bw ? *lo : *hi, best = bw ? *hi : *lo;
        fmt::format_to(o, "<text x=\"10\" y=\"{}\">{:.2f} {} (worst)</text>\n", ly + 28, worst, unit);
        fmt::format_to(o, "<text x=\"310\" y=\"{}\" text-anchor=\"end\">{:.2f} {} (best)</text>\n", ly + 28, best, unit);
    } else {
        fmt::format_to(o, "<text x=\"10\" y=\"{}\">no measured pair</text>\n", ly + 28);
    }
    int sx = 340;
    for (const auto& [fill, name] : {std::pair{failed_fill, "failed"}, std::pair{not_run_fill, "not run"},
                                     std::pair{untested_fill, "not tested"}, std::pair{diagonal_fill, "self"}}) {
        fmt::format_to(o, "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#808080\"/>", sx, ly,
                       fill);
        fmt::format_to(o, "<text x=\"{}\" y=\"{}\">{}</text>\n", sx + 18, ly + 11, name);
        sx += 85;
    }
    out += "</svg>\n";
    return out;
}

}  // namespace qps::fmt_out
