#include "formatters/mesh_svg.hpp"
#include "src/util/outside_bytes.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <optional>
#include <vector>

namespace qps::formatters {

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

// Every ordered pair's cell (row sends to column for bandwidth; both ways
// the same for latency), and the range of the measured values.
struct CellGrid {
    std::size_t n = 0;
    std::vector<Cell> cells;
    std::optional<double> lo, hi;

    Cell& at(std::size_t row, std::size_t col) { return cells[row * n + col]; }
    const Cell& at(std::size_t row, std::size_t col) const { return cells[row * n + col]; }
    void measured(std::uint32_t row, std::uint32_t col, double v)
    {
        if (row >= n || col >= n)
            return;
        at(row, col) = {Cell::Kind::measured, v, {}};
        lo = lo ? std::min(*lo, v) : v;
        hi = hi ? std::max(*hi, v) : v;
    }
};

CellGrid cells_of(const mesh::MeshReport& r, mesh::Metric metric)
{
    CellGrid g;
    g.n = r.ranks.size();
    g.cells.resize(g.n * g.n);
    for (const auto& p : r.results) {
        if (p.pair.a >= g.n || p.pair.b >= g.n)
            continue;
        if (p.status != mesh::PairStatus::ok) {
            const Cell c{p.status == mesh::PairStatus::failed ? Cell::Kind::failed : Cell::Kind::not_run, 0, p.cause};
            g.at(p.pair.a, p.pair.b) = c;
            g.at(p.pair.b, p.pair.a) = c;
            continue;
        }
        if (metric == mesh::Metric::bw) {
            if (p.bw_ab)
                g.measured(p.pair.a, p.pair.b, p.bw_ab->gbps);
            if (p.bw_ba)
                g.measured(p.pair.b, p.pair.a, p.bw_ba->gbps);
        } else if (const auto& lat = p.lat_a ? p.lat_a : p.lat_b) {
            g.measured(p.pair.a, p.pair.b, lat->p50_us);
            g.measured(p.pair.b, p.pair.a, lat->p50_us);
        }
    }
    return g;
}

// Where things go: the cell size for the rank count, labels when cells are
// large enough to carry them, the margins and the whole picture.
struct SvgLayout {
    int cell, margin_left, margin_top, grid, width, height;
    bool labels, bw;
    const char* unit;

    SvgLayout(std::size_t n, mesh::Metric metric)
    {
        cell = n <= 32 ? 28 : std::max(4, static_cast<int>(896 / n));
        labels = cell >= 10;
        margin_left = labels ? 150 : 40;
        margin_top = labels ? 150 : 60;
        const int legend_h = 90;
        grid = cell * static_cast<int>(n);
        width = std::max(margin_left + grid + 40, 680);
        height = margin_top + grid + legend_h;
        bw = metric == mesh::Metric::bw;
        unit = bw ? "Gb/s" : "us";
    }
};

void svg_header(std::string& out, const mesh::MeshReport& r, const SvgLayout& l)
{
    auto o = std::back_inserter(out);
    fmt::format_to(o,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
                   "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
                   "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
                   l.width, l.height);
    fmt::format_to(o, "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">qpscope-mesh: {}, {} ranks</text>\n",
                   l.bw ? "bandwidth, Gb/s (row sends to column)" : "latency p50 one-way, us", r.ranks.size());
    fmt::format_to(o, "<text x=\"10\" y=\"38\">{} pairs, {} rounds run of {}{}</text>\n", r.results.size(), r.rounds_done,
                   r.schedule.rounds.size(), r.stopped.empty() ? "" : " (stopped early)");
}

// Each rank's label at its row and above its column.
void svg_labels(std::string& out, const mesh::MeshReport& r, const SvgLayout& l)
{
    auto o = std::back_inserter(out);
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
        const int pos = static_cast<int>(i) * l.cell + l.cell / 2;
        const std::string text = escaped(label_of(r, static_cast<std::uint32_t>(i)));
        fmt::format_to(o, "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                          "dominant-baseline=\"middle\">{}</text>\n",
                       l.margin_left - 4, l.margin_top + pos, text);
        fmt::format_to(o, "<text class=\"col-label\" transform=\"translate({},{}) rotate(-60)\">{}</text>\n",
                       l.margin_left + pos + 4, l.margin_top - 4, text);
    }
}

// A cell's colour and its tooltip: from row `from` to column `to`.
std::pair<std::string, std::string> cell_look(const CellGrid& g, std::size_t row, std::size_t col,
                                              const std::string& from, const std::string& to, const SvgLayout& l)
{
    const Cell& c = g.at(row, col);
    if (row == col)
        return {diagonal_fill, from};
    if (c.kind == Cell::Kind::measured) {
        const double span = *g.hi - *g.lo;
        const double good = span > 0 ? (l.bw ? (c.value - *g.lo) / span : (*g.hi - c.value) / span) : 1.0;
        return {colour(1.0 - good),
                fmt::format("{} {} {}: {:.2f} {}", from, l.bw ? "-&gt;" : "&lt;-&gt;", to, c.value, l.unit)};
    }
    if (c.kind == Cell::Kind::failed)
        return {failed_fill, fmt::format("{} &lt;-&gt; {}: failed: {}", from, to, escaped(c.cause))};
    if (c.kind == Cell::Kind::not_run)
        return {not_run_fill, fmt::format("{} &lt;-&gt; {}: not run{}{}", from, to, c.cause.empty() ? "" : ": ",
                                          escaped(c.cause))};
    return {untested_fill, fmt::format("{} &lt;-&gt; {}: not in the plan", from, to)};
}

// The matrix: one rectangle a cell, a failed pair crossed out.
void svg_cells(std::string& out, const mesh::MeshReport& r, const CellGrid& g, const SvgLayout& l)
{
    auto o = std::back_inserter(out);
    const int cell = l.cell;
    for (std::size_t row = 0; row < g.n; ++row)
        for (std::size_t col = 0; col < g.n; ++col) {
            const int x = l.margin_left + static_cast<int>(col) * cell, y = l.margin_top + static_cast<int>(row) * cell;
            const std::string from = escaped(label_of(r, static_cast<std::uint32_t>(row)));
            const std::string to = escaped(label_of(r, static_cast<std::uint32_t>(col)));
            const auto [fill, title] = cell_look(g, row, col, from, to, l);
            fmt::format_to(o, "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                              "stroke=\"#c0c0c0\" stroke-width=\"{}\"><title>{}</title></rect>\n",
                           x, y, cell, cell, fill, cell >= 10 ? "0.5" : "0", title);
            if (g.at(row, col).kind == Cell::Kind::failed && row != col && cell >= 8) {
                const int p = cell / 4;
                fmt::format_to(o,
                               "<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
                               x + p, y + p, x + cell - p, y + cell - p, x + cell - p, y + p, x + p, y + cell - p);
            }
        }
}

// The legend: the scale between the run's best and worst, and the other kinds.
void svg_legend(std::string& out, const CellGrid& g, const SvgLayout& l)
{
    auto o = std::back_inserter(out);
    const int ly = l.margin_top + l.grid + 25;
    fmt::format_to(o, "<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">");
    for (int stop = 0; stop <= 4; ++stop)
        fmt::format_to(o, "<stop offset=\"{}%\" stop-color=\"{}\"/>", stop * 25, colour(1.0 - stop / 4.0));
    fmt::format_to(o, "</linearGradient></defs>\n");
    fmt::format_to(o, "<rect x=\"10\" y=\"{}\" width=\"300\" height=\"14\" fill=\"url(#scale)\"/>\n", ly);
    if (g.lo && g.hi) {
        const double worst = l.bw ? *g.lo : *g.hi, best = l.bw ? *g.hi : *g.lo;
        fmt::format_to(o, "<text x=\"10\" y=\"{}\">{:.2f} {} (worst)</text>\n", ly + 28, worst, l.unit);
        fmt::format_to(o, "<text x=\"310\" y=\"{}\" text-anchor=\"end\">{:.2f} {} (best)</text>\n", ly + 28, best,
                       l.unit);
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
}

}  // namespace

std::string mesh_svg(const mesh::MeshReport& r, mesh::Metric metric)
{
    const CellGrid g = cells_of(r, metric);
    const SvgLayout l(g.n, metric);
    std::string out;
    svg_header(out, r, l);
    if (l.labels)
        svg_labels(out, r, l);
    svg_cells(out, r, g, l);
    svg_legend(out, g, l);
    out += "</svg>\n";
    return out;
}

}  // namespace qps::formatters
