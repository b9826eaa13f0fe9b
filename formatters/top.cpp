#include "formatters/top.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "formatters/watch.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

std::string rate_text(const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : "-"; }

}  // namespace

std::vector<std::string> top_lines(const watch::TopModel& m, const std::string& now, int width, int height)
{
    const auto w = static_cast<std::size_t>(std::max(width, 20));
    const auto h = static_cast<std::size_t>(std::max(height, 8));
    std::vector<std::string> head, qps, events;
    head.push_back(fmt::format("qpscope watch --top   {}   {} look{}   q quits", now, m.looks, m.looks == 1 ? "" : "s"));
    head.push_back(fmt::format("{:<16} {:<8} {:>12} {:>12}", "PORT", "STATE", "SENT pkt/s", "RECV pkt/s"));
    if (m.ports.empty())
        head.push_back("(no RDMA device)");
    for (const auto& p : m.ports)
        head.push_back(fmt::format("{:<16} {:<8} {:>12} {:>12}", util::escape_text(fmt::format("{}/{}", p.device, p.port)),
                                   p.state, rate_text(p.sent_per_second), rate_text(p.received_per_second)));
    head.push_back("");
    head.push_back(m.qps_error.empty()
                       ? fmt::format("QPs: {} (busiest first, PSNs a second)", m.qps.size())
                       : fmt::format("QPs: not readable: {}", util::escape_text(m.qps_error)));
    head.push_back(fmt::format("{:<10} {:>8} {:<4} {:<5} {:>10} {:>8}  {:<16} {:>8}", "DEVICE", "QPN", "TYPE", "STATE",
                               "PSN/s", "PID", "OWNER", "PEER QPN"));
    for (const auto& q : m.qps)
        qps.push_back(fmt::format("{:<10} {:>8} {:<4} {:<5} {:>10} {:>8}  {:<16} {:>8}", util::escape_text(q.device), q.qpn,
                                  q.type, q.state, rate_text(q.psn_per_second), q.pid ? std::to_string(*q.pid) : "-",
                                  util::escape_text(q.owner), q.dest_qpn ? std::to_string(*q.dest_qpn) : "-"));
    for (const auto& r : m.events)
        events.push_back(watch_line(r, false));

    // Room: the head, then QPs and events share what is left; events get at
    // least 4 lines (or all they have), the QPs the rest.
    const std::size_t left = h > head.size() + 2 ? h - head.size() - 2 : 0;
    const std::size_t ev_rows = std::min(events.size(), std::max<std::size_t>(4, left > qps.size() ? left - qps.size() : 4));
    const std::size_t qp_rows = std::min(qps.size(), left > ev_rows ? left - ev_rows : 0);
    std::vector<std::string> out = head;
    out.insert(out.end(), qps.begin(), qps.begin() + static_cast<std::ptrdiff_t>(qp_rows));
    if (qp_rows < qps.size())
        out.push_back(fmt::format("... {} more", qps.size() - qp_rows));
    out.push_back("");
    out.push_back("Last records");
    out.insert(out.end(), events.end() - static_cast<std::ptrdiff_t>(ev_rows), events.end());
    if (out.size() > h)
        out.resize(h);
    for (auto& l : out)
        if (l.size() > w)
            l.resize(w);
    return out;
}

}  // namespace qps::formatters
