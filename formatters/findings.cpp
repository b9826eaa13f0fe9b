#include "formatters/findings.hpp"

#include <fmt/format.h>

namespace qps::formatters {

std::string status_word(Status s)
{
    switch (s) {
    case Status::ok: return "ok";
    case Status::warn: return "WARN";
    case Status::fail: return "FAIL";
    case Status::skipped: return "skip";
    }
    return "?";
}

void render_finding(const Finding& f, Printer& p)
{
    p.begin_object("", "");
    p.datum("id", f.id);
    p.datum("status", std::string(status_name(f.status)));
    p.datum("device", f.device.empty() ? Value(nullptr) : Value(f.device));
    p.datum("port", f.port ? Value(std::uint64_t{*f.port}) : Value(nullptr));
    // The label column: "FAIL  port.state      ".
    p.field("summary", fmt::format("  {:<4}  {:<15}", status_word(f.status), f.id), f.summary);
    if (!f.why.empty())
        p.field("why", "          why", f.why);
    if (!f.fix.empty())
        p.field("fix", "          fix", f.fix);
    p.begin_object("seen", "");
    for (const auto& [name, value] : f.seen)
        p.datum(name, value);
    p.end_object();
    p.end_object();
}

std::string finding_line(const Finding& f, std::string_view where)
{
    return fmt::format("{} {}{}{}: {}{}", status_word(f.status), f.id, where.empty() ? "" : " ", where, f.summary,
                       f.fix.empty() ? "" : "; fix: " + f.fix);
}

}  // namespace qps::formatters
