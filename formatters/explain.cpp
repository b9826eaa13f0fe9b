#include "formatters/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>

namespace qps::formatters {

namespace {

// The members of one explanation, inside an object the caller opened.
void render_body(const explain::Explanation& e, Printer& p)
{
    p.datum_text("topic", e.topic);
    p.datum_text("input", e.input);
    p.datum("raw", e.raw);
    p.datum_text("name", e.name);
    p.datum("decoded", e.decoded);
    if (!e.names.empty() || e.unknown_bits) {
        p.begin_list("bits", "");
        for (const auto& n : e.names)
            p.item_text(n);
        p.end_list();
        p.datum("unknown_bits", e.unknown_bits);
    }
    p.begin_object("facts", "");
    for (const auto& f : e.facts)
        p.field_text(f.key, f.label, f.text);
    p.end_object();
    p.begin_list("checks", e.checks.empty() ? "" : "check");
    for (const auto& c : e.checks)
        p.item_text(c);
    p.end_list();
}

// "TOPIC INPUT: NAME (NUMBER)", " (not decoded)" after a value no public source gives the meaning of.
void append_heading(std::string& out, const explain::Explanation& e)
{
    out.append(e.topic).append(" ").append(e.input).append(": ").append(e.name);
    if (!e.number.empty())
        out.append(" (").append(e.number).append(")");
    if (!e.decoded)
        out.append(" (not decoded)");
}

std::string heading_of(const explain::Explanation& e)
{
    std::string out;
    append_heading(out, e);
    return out;
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
    ExplainLogWriter w(p);
    for (const auto& l : r.lines)
        w.line(l);
    w.finish(r.interrupted);
}

ExplainLogWriter::ExplainLogWriter(Printer& p) : p_(p) { p_.begin_list("lines", ""); }

void ExplainLogWriter::line(const explain::LogLine& l)
{
    ++lines_;
    if (!l.utf8)
        not_utf8_.push_back(l.number);
    if (l.found.empty()) {
        unattributed_.add(l.number, l.text);
        return;
    }
    ++attributed_;
    values_ += l.found.size();
    heading_.assign("line ");
    fmt::format_to(std::back_inserter(heading_), "{}", l.number);
    heading_.append(": ").append(l.text);
    p_.begin_object("", heading_);
    p_.datum("line", std::uint64_t{l.number});
    p_.datum_text("text", l.text);
    p_.begin_list("found", "");
    for (const auto& a : l.found) {
        all_decoded_ = all_decoded_ && a.explanation.decoded;
        // A log repeats its values: the text of one written before is written again as it was.
        if (a.build != 0 && p_.replay(a.build))
            continue;
        p_.keep_begin(a.build);
        heading_.clear();
        append_heading(heading_, a.explanation);
        heading_.append(" (").append(a.source).append(")");
        p_.begin_object("", heading_);
        p_.datum_text("pattern", a.pattern);
        p_.datum_text("source", a.source);
        p_.datum_text("value", a.value);
        render_body(a.explanation, p_);
        p_.end_object();
        p_.keep_end();
    }
    p_.end_list();
    p_.end_object();
}

void ExplainLogWriter::finish(bool interrupted)
{
    Printer& p = p_;
    p.end_list();
    const std::size_t unattributed = unattributed_.size();
    p.begin_list("unattributed", unattributed ? "Nothing attributed in" : "");
    unattributed_.each([&](std::uint64_t number, std::string_view text) {
        p.begin_object("", "");
        p.datum("line", number);
        p.field("text", fmt::format("line {}", number), std::string(text));
        p.end_object();
    });
    p.end_list();
    p.begin_object("counts", "");
    p.datum("lines", std::uint64_t{lines_});
    p.datum("attributed", std::uint64_t{attributed_});
    p.datum("values", std::uint64_t{values_});
    p.end_object();
    p.begin_list("not_utf8_lines", "");
    for (const std::size_t n : not_utf8_)
        p.datum("", std::uint64_t{n});  // JSON only: the note below says it in text
    p.end_list();
    if (!not_utf8_.empty())
        p.note(fmt::format("line{} {} {} bytes that are not UTF-8: shown as \\xNN (JSON: U+FFFD); read like the "
                           "other lines",
                           not_utf8_.size() == 1 ? "" : "s", fmt::join(not_utf8_, ", "),
                           not_utf8_.size() == 1 ? "holds" : "hold"));
    p.note(fmt::format("{} line{}, {} with values ({} value{}), {} attributed to nothing", lines_,
                       lines_ == 1 ? "" : "s", attributed_, values_, values_ == 1 ? "" : "s", unattributed));
    p.datum("interrupted", interrupted);
    if (interrupted)
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
