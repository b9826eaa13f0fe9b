#include "formatters/doctor.hpp"

#include <fmt/format.h>

namespace qps::fmt_out {

namespace {

std::string group_of(const health::Finding& f)
{
    if (f.device.empty())
        return "host";
    return f.port ? fmt::format("{} port {}", f.device, *f.port) : f.device;
}

std::string status_word(health::Status s)
{
    switch (s) {
    case health::Status::ok: return "ok";
    case health::Status::warn: return "WARN";
    case health::Status::fail: return "FAIL";
    case health::Status::skipped: return "skip";
    }
    return "?";
}

}  // namespace

void render_doctor(const health::DoctorReport& r, bool strict, Printer& p)
{
    p.datum("interval_s", r.interval_s);
    p.datum("strict", strict);
    p.begin_list("findings", "");
    std::string group;
    for (const auto& f : r.findings) {
        if (const std::string g = group_of(f); g != group) {
            group = g;
            p.note(group);
        }
        p.begin_object("", "");
        p.datum("id", f.id);
        p.datum("status", std::string(health::status_name(f.status)));
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
    p.end_list();
    const health::DoctorCounts c = health::count_findings(r);
    p.begin_object("counts", "");
    p.datum("ok", std::uint64_t{c.ok});
    p.datum("warn", std::uint64_t{c.warn});
    p.datum("fail", std::uint64_t{c.fail});
    p.datum("skipped", std::uint64_t{c.skipped});
    p.end_object();
    p.datum("healthy", health::doctor_exit_code(r, strict) == 0);
    p.note(fmt::format("{} failed, {} warning{}, {} ok, {} skipped{}: {}", c.fail, c.warn, c.warn == 1 ? "" : "s",
                       c.ok, c.skipped, strict ? " (--strict: warnings fail)" : "",
                       health::doctor_exit_code(r, strict) == 0 ? "healthy" : "NOT healthy"));
}

std::vector<std::string> doctor_failure_lines(const health::DoctorReport& r, bool strict)
{
    std::vector<std::string> out;
    for (const auto& f : r.findings)
        if (health::counts_against(f, strict))
            out.push_back(fmt::format("{} {} {}: {}{}", status_word(f.status), f.id, group_of(f), f.summary,
                                      f.fix.empty() ? "" : "; fix: " + f.fix));
    return out;
}

}  // namespace qps::fmt_out
