#include "formatters/doctor.hpp"

#include <fmt/format.h>

#include "formatters/findings.hpp"

namespace qps::formatters {

namespace {

std::string group_of(const Finding& f)
{
    if (f.device.empty())
        return "host";
    return f.port ? fmt::format("{} port {}", f.device, *f.port) : f.device;
}

}  // namespace

void render_doctor(const ops::DoctorReport& r, bool strict, Printer& p)
{
    p.datum("interval_s", r.interval_s);
    p.datum("strict", strict);
    p.datum("interrupted", r.interrupted);
    p.begin_list("findings", "");
    std::string group;
    for (const auto& f : r.findings) {
        if (const std::string g = group_of(f); g != group) {
            group = g;
            p.note(group);
        }
        render_finding(f, p);
    }
    p.end_list();
    const ops::DoctorCounts c = ops::count_findings(r);
    p.begin_object("counts", "");
    p.datum("ok", std::uint64_t{c.ok});
    p.datum("warn", std::uint64_t{c.warn});
    p.datum("fail", std::uint64_t{c.fail});
    p.datum("skipped", std::uint64_t{c.skipped});
    p.end_object();
    p.datum("healthy", ops::doctor_exit_code(r, strict) == 0);
    p.note(fmt::format("{} failed, {} warning{}, {} ok, {} skipped{}: {}", c.fail, c.warn, c.warn == 1 ? "" : "s",
                       c.ok, c.skipped, strict ? " (--strict: warnings fail)" : "",
                       ops::doctor_exit_code(r, strict) == 0 ? "healthy" : "NOT healthy"));
    if (r.interrupted)
        p.note(fmt::format("interrupted after {:.1f} s: the findings so far (exit 4)", r.interval_s));
}

std::vector<std::string> doctor_failure_lines(const ops::DoctorReport& r, bool strict)
{
    std::vector<std::string> out;
    for (const auto& f : r.findings)
        if (ops::counts_against(f, strict))
            out.push_back(finding_line(f, group_of(f)));
    return out;
}

}  // namespace qps::formatters
