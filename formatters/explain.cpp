#include "formatters/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace qps::formatters {

namespace {

// The members of one explanation, inside an object the caller opened.
void render_body(const explain::Explanation& e, Printer& p)
{
    p.datum("topic", e.topic);
    p.datum("input", e.input);
    p.datum("raw", e.raw);
    p.datum("name", e.name);
    p.datum("decoded", e.decoded);
    if (!e.names.empty() || e.unknown_bits) {
        p.begin_list("bits", "");
        for (const auto& n : e.names)
            p.item(n);
        p.end_list();
        p.datum("unknown_bits", e.unknown_bits);
    }
    p.begin_object("facts", "");
    for (const auto& f : e.facts)
        p.field(f.key, f.label, f.text);
    p.end_object();
    p.begin_list("checks", e.checks.empty() ? "" : "check");
    for (const auto& c : e.checks)
        p.item(c);
    p.end_list();
}

std::string heading_of(const explain::Explanation& e)
{
    return fmt::format("{} {}: {}{}{}", e.topic, e.input, e.name, e.number.empty() ? "" : " (" + e.number + ")",
                       e.decoded ? "" : " (not decoded)");
}

}  // namespace

void render_explanations(const std::vector<explain::Explanation>& all, Printer& p)
{
    p.begin_list("explanations", "");
    for (const auto& e : all) {
        p.begin_object("", heading_of(e));
        render_body(e, p);
        p.end_object();
    }
    p.end_list();
}

void render_explain_log(const explain::LogReport& r, Printer& p)
{
    p.begin_list("lines", "");
    for (const auto& l : r.lines) {
        if (l.found.empty())
            continue;
        p.begin_object("", fmt::format("line {}: {}", l.number, l.text));
        p.datum("line", std::uint64_t{l.number});
        p.datum("text", l.text);
        p.begin_list("found", "");
        for (const auto& a : l.found) {
            p.begin_object("", fmt::format("{} ({})", heading_of(a.explanation), a.source));
            p.datum("pattern", a.pattern);
            p.datum("source", a.source);
            p.datum("value", a.value);
            render_body(a.explanation, p);
            p.end_object();
        }
        p.end_list();
        p.end_object();
    }
    p.end_list();
    const std::size_t unattributed = r.lines.size() - r.attributed_lines();
    p.begin_list("unattributed", unattributed ? "Nothing attributed in" : "");
    for (const auto& l : r.lines) {
        if (!l.found.empty())
            continue;
        p.begin_object("", "");
        p.datum("line", std::uint64_t{l.number});
        p.field("text", fmt::format("line {}", l.number), l.text);
        p.end_object();
    }
    p.end_list();
    p.begin_object("counts", "");
    p.datum("lines", std::uint64_t{r.lines.size()});
    p.datum("attributed", std::uint64_t{r.attributed_lines()});
    p.datum("values", std::uint64_t{r.values()});
    p.end_object();
    const std::vector<std::size_t> odd = r.not_utf8_lines();
    p.begin_list("not_utf8_lines", "");
    for (const std::size_t n : odd)
        p.datum("", std::uint64_t{n});  // JSON only: the note below says it in text
    p.end_list();
    if (!odd.empty())
        p.note(fmt::format("line{} {} {} bytes that are not UTF-8: shown as \\xNN (JSON: U+FFFD); read like the "
                           "other lines",
                           odd.size() == 1 ? "" : "s", fmt::join(odd, ", "), odd.size() == 1 ? "holds" : "hold"));
    p.note(fmt::format("{} line{}, {} with values ({} value{}), {} attributed to nothing", r.lines.size(),
                       r.lines.size() == 1 ? "" : "s", r.attributed_lines(), r.values(), r.values() == 1 ? "" : "s",
                       unattributed));
    p.datum("interrupted", r.interrupted);
    if (r.interrupted)
        p.note("interrupted: the lines read before it (exit 4)");
}

void render_explain_topics(Printer& p)
{
    Table t;
    t.columns = {{"topic", "TOPIC"}, {"what", "WHAT"}, {"valid", "VALUE"}};
    for (const auto& topic : explain::topics())
        t.rows.push_back({std::string(topic.name), std::string(topic.what), std::string(topic.valid)});
    p.table("topics", "", t);
}

}  // namespace qps::formatters
