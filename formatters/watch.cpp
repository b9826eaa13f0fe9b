#include "formatters/watch.hpp"

#include <fmt/format.h>
#include <type_traits>

#include "src/util/outside_bytes.hpp"
#include "src/util/text.hpp"

namespace qps::formatters {

namespace {

template <class T>
Value value_or_null(const std::optional<T>& v)
{
    if (!v)
        return Value{};
    if constexpr (std::is_same_v<T, std::uint32_t>)
        return Value{std::uint64_t{*v}};
    else
        return Value{*v};
}

Value text_or_null(const std::string& s)
{
    return s.empty() ? Value{} : Value{s};
}

std::string_view colour_of(decode::Severity s)
{
    switch (s) {
    case decode::Severity::info: return "";
    case decode::Severity::warning: return "\033[33m";
    case decode::Severity::error: return "\033[31m";
    case decode::Severity::critical: return "\033[1;31m";
    }
    return "";
}

}  // namespace

std::string watch_line(const watch::WatchRecord& r, bool color)
{
    // The time of day of the RFC 3339 stamp: "2026-11-28T19:57:00.123Z" -> "19:57:00.123".
    const std::string time = r.timestamp.size() >= 23 ? r.timestamp.substr(11, 12) : r.timestamp;
    std::string where = r.device;
    if (r.port)
        where += fmt::format("/{}", *r.port);
    std::string line = fmt::format("{}  {:<8} {:<8} {:<14}", time, util::upper(decode::severity_name(r.severity)),
                                   where.empty() ? "-" : util::escape_text(where), watch::kind_name(r.kind));
    if (color && !colour_of(r.severity).empty())
        line = fmt::format("{}{}\033[0m", colour_of(r.severity), line);
    std::string what;
    const auto add = [&](const std::string& s) {
        if (s.empty())
            return;
        if (!what.empty())
            what += "  ";
        what += s;
    };
    if (r.event)
        add(r.event->name.value_or("?"));
    if (r.qpn)
        add(fmt::format("QPN {}", *r.qpn));
    if (r.qp_type)
        add(r.qp_type->name.value_or("?"));
    if (r.index)
        add(fmt::format("index {}", *r.index));
    if (!r.subject.empty())
        add(util::escape_text(r.subject));
    // A name may be a device's or a netdev's: bytes from outside.
    const auto name_of = [](const std::optional<decode::Decoded>& d) { return util::escape_text(d->name.value_or("?")); };
    if (r.from && r.to)
        add(fmt::format("{} -> {}", name_of(r.from), name_of(r.to)));
    else if (r.to && r.kind != watch::WatchKind::qp_created && r.kind != watch::WatchKind::qp_destroyed)
        add(name_of(r.to));
    else if (r.from)
        add(name_of(r.from));
    if (r.pid || !r.comm.empty())
        add(r.pid ? fmt::format("pid {} ({})", *r.pid, util::escape_text(r.comm)) : util::escape_text(r.comm));
    if (r.kind == watch::WatchKind::port_rate)
        add(fmt::format("sent {}/s, received {}/s packets", r.per_second ? fmt::format("{:.0f}", *r.per_second) : "?",
                        r.received_per_second ? fmt::format("{:.0f}", *r.received_per_second) : "?"));
    else if (r.delta)
        add(fmt::format("+{}{}", *r.delta, r.per_second ? fmt::format(" ({:.1f}/s)", *r.per_second) : ""));
    add(util::escape_text(r.detail));
    line += " " + what;
    if (!r.meaning.empty())
        line += ": " + r.meaning;
    return line;
}

void render_watch_record(const watch::WatchRecord& r, Printer& p)
{
    p.field("timestamp", "time", r.timestamp);
    p.field("kind", "kind", std::string(watch::kind_name(r.kind)));
    p.field("source", "source", std::string(watch::source_name(r.source)));
    p.field("severity", "severity", std::string(decode::severity_name(r.severity)));
    p.field("device", "device", text_or_null(r.device));
    p.field("port", "port", value_or_null(r.port));
    p.field("qpn", "QPN", value_or_null(r.qpn));
    p.field("pid", "pid", value_or_null(r.pid));
    p.field("comm", "owner", r.comm.empty() ? Value{} : Value{OutsideBytes{r.comm}});
    p.field("index", "index", value_or_null(r.index));
    p.field("event", "event", value_or_null(r.event));
    p.field("qp_type", "QP type", value_or_null(r.qp_type));
    p.field("from", "from", value_or_null(r.from));
    p.field("to", "to", value_or_null(r.to));
    p.field("subject", "subject", text_or_null(r.subject));
    p.field("detail", "detail", text_or_null(r.detail));
    p.field("delta", "delta", value_or_null(r.delta));
    p.field("per_second", "per second", value_or_null(r.per_second));
    p.field("received", "received", value_or_null(r.received));
    p.field("received_per_second", "received per second", value_or_null(r.received_per_second));
    p.field("meaning", "meaning", text_or_null(r.meaning));
}

}  // namespace qps::formatters
