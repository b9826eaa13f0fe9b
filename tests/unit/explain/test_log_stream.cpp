// explain --log on what a log may really hold: lines crafted against the
// patterns (100 KB of one character, a pattern's words repeated thousands
// of times, a ".*" between words that never ends) give their values, as
// RE2 matches in one pass; a log read line by line (scan_log) gives what
// explain_log keeps; the report lists the attributed lines, then the
// others in order, however many were put aside.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "formatters/explain.hpp"
#include "formatters/printer.hpp"
#include "src/explain/log.hpp"
#include "src/explain/log_match.hpp"
#include "src/util/text.hpp"
#include "unit/util.hpp"

using namespace qps;
using qps::test::contains;

namespace {

// "topic=raw" of each value found, in order.
std::vector<std::string> values_in(const std::string& line)
{
    std::vector<std::string> out;
    for (const auto& a : explain::attribute_line(line))
        out.push_back(a.explanation.topic + "=" + std::to_string(a.explanation.raw));
    return out;
}

std::string repeated(const std::string& s, std::size_t times)
{
    std::string out;
    out.reserve(s.size() * times);
    for (std::size_t i = 0; i < times; ++i)
        out += s;
    return out;
}

}  // namespace

TEST_CASE("explain --log: crafted 100 KB lines give exactly their values")
{
    const std::size_t kb100 = 100 * 1024;
    CHECK(values_in(std::string(kb100, 'a')).empty());
    CHECK(values_in(std::string(kb100, ':')).empty());   // the GID scanner's characters, no GID
    CHECK(values_in(std::string(kb100, '(')).empty());
    CHECK(values_in(repeated("0:", kb100 / 2)).empty());  // hex digits and colons, not an IPv6 address
    // ".*" between two words whose second never comes: a backtracking engine tries
    // every start against every end (and std::regex recursed once a byte).
    CHECK(values_in(repeated("iser_err_comp: ", kb100 / 15)).empty());
    CHECK(values_in("iser: iser_err_comp: " + std::string(kb100, 'x') + " vend_err 0x81") ==
          std::vector<std::string>{"vendor-err=129"});
    // A pattern's fixed words thousands of times, the value once at the end.
    CHECK(values_in(repeated("status=(", kb100 / 8) + " status=12") == std::vector<std::string>{"wc-status=12"});
    CHECK(values_in(repeated("failed SEND status ", kb100 / 19) + "x").empty());
    // The same value thousands of times is one value.
    CHECK(values_in(repeated("vendor err 129 ", kb100 / 15)) == std::vector<std::string>{"vendor-err=129"});
    const auto ports = explain::attribute_line(repeated("mlx5_0:1 ", kb100 / 9));
    REQUIRE(ports.size() == 1);
    CHECK(ports[0].value == "mlx5_0:1");
}

TEST_CASE("explain --log: every regex has literal parts for the prefilter, and a pattern's own words are in its example")
{
    // A pattern the prefilter cannot skip would run on every line of a log.
    CHECK(explain::detail::LogMatcher::get().unfiltered().empty());
    for (const auto& p : explain::log_patterns()) {
        if (p.needs.empty())
            continue;
        CHECK_MESSAGE(p.scan == explain::Scan::regex, p.id);
        const std::string example = util::lower(p.example);
        bool one = false;
        for (std::size_t from = 0; from <= p.needs.size();) {
            const auto bar = std::min(p.needs.find('|', from), p.needs.size());
            const auto word = p.needs.substr(from, bar - from);
            CHECK_MESSAGE((!word.empty() && util::lower(word) == word), p.id, ": '", word, "'");
            one = one || example.find(word) != std::string::npos;
            from = bar + 1;
        }
        CHECK_MESSAGE(one, p.id, ": none of '", p.needs, "' in its example");
    }
}

TEST_CASE("explain --log: a regex's lead is what every match starts with, and a search skips to it")
{
    using explain::detail::match_lead;
    CHECK(match_lead(R"(\bstatus=(?:[^(= ]+\()?(\d+))") == "status=");
    CHECK(match_lead(R"(\bWC error: (\d+))") == "wc error: ");
    CHECK(match_lead(R"(\([[:space:]]*(\d+)\): status)") == "(");                // an escaped operator is a literal
    CHECK(match_lead(R"(\bRDMA_CM_EVENT_REJECTED,? (?:error))") == "rdma_cm_event_rejected");  // ',' is optional
    CHECK(match_lead(R"(\bvendor[ _]err)") == "vendor");
    CHECK(match_lead(R"(\b(?:errno|err)=(\d+))").empty());                       // a group first
    CHECK(match_lead(R"(\bREJ reason (0x[0-9a-f]+)$|Received CM REJ)").empty());  // an alternative at the top level
    CHECK(match_lead(R"(ab[|]c)") == "ab");                                        // '|' in a class is no alternative
    CHECK(match_lead(R"(\d+ errors)").empty());
    CHECK(match_lead("caf\xe9 (\\d+)") == "caf");                                // ASCII only
    const auto& m = explain::detail::LogMatcher::get();
    const auto pats = explain::log_patterns();
    for (std::size_t i = 0; i < pats.size(); ++i) {
        if (pats[i].scan != explain::Scan::regex || m.lead(i).empty())
            continue;
        // The example's match starts with the lead; in upper case too, and after a first occurrence of it.
        for (const std::string& line : {std::string(pats[i].example), util::upper(pats[i].example),
                                        util::upper(std::string(m.lead(i))) + " " + std::string(pats[i].example)}) {
            re2::StringPiece match;
            const bool found = m.pattern(i).Match(line, 0, line.size(), RE2::UNANCHORED, &match, 1);
            CHECK_MESSAGE(found, pats[i].id);
            if (found)
                CHECK_MESSAGE(util::lower(std::string_view(match.data(), match.size())).rfind(m.lead(i), 0) == 0,
                              pats[i].id, ": '", m.lead(i), "'");
        }
    }
    // Each match still found, the second of a line too (after the lead's first occurrence).
    CHECK(values_in("status=5 with STATUS=13 and status=(") == std::vector<std::string>{"wc-status=5", "wc-status=13"});
}

TEST_CASE("explain --log: scan_log hands over each line as explain_log keeps it")
{
    const std::string log = "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n\r\n"
                            "Failed status transport retry counter exceeded (12) for wr_id 1\r\n"
                            "  \n"
                            "cma event RDMA_CM_EVENT_REJECTED, error 8\n"
                            "no newline at the end";
    std::istringstream a(log), b(log);
    const auto kept = explain::explain_log(a);
    std::vector<explain::LogLine> streamed;
    explain::scan_log(b, [&](const explain::LogLine& l) { streamed.push_back(l); });
    REQUIRE(streamed.size() == kept.lines.size());
    REQUIRE(streamed.size() == 4);
    for (std::size_t i = 0; i < streamed.size(); ++i) {
        CHECK(streamed[i].number == kept.lines[i].number);
        CHECK(streamed[i].text == kept.lines[i].text);
        CHECK(streamed[i].found.size() == kept.lines[i].found.size());
    }
    CHECK(streamed[1].number == 3);
    CHECK(streamed[1].text == "Failed status transport retry counter exceeded (12) for wr_id 1");
    CHECK(streamed[2].found.size() == 2);
    CHECK(streamed[3].number == 6);
    CHECK(streamed[3].found.empty());
}

TEST_CASE("explain --log: the report lists the attributed lines first, then every other one in order")
{
    std::ostringstream log;
    const std::size_t n = 30000;  // past the spool's 1 MiB in memory: most are read back from its file
    for (std::size_t i = 1; i <= n; ++i)
        log << (i == 2 ? std::string("Failed status 12: wr_id 0 syndrom 0x81") : "an unrelated line " + std::to_string(i) + " " + std::string(40, 'x'))
            << '\n';
    std::istringstream in(log.str());
    std::ostringstream text;
    auto p = formatters::make_printer({.json = false, .color = false}, text);
    p->begin_document("explain");
    formatters::ExplainLogWriter w(*p);
    explain::scan_log(in, [&](const explain::LogLine& l) { w.line(l); });
    w.finish(false);
    p->end_document();
    CHECK(w.lines() == n);
    CHECK(w.attributed() == 1);
    const std::string out = text.str();
    const auto attributed = out.find("line 2: Failed status 12");
    const auto first = out.find("line 1 : an unrelated line 1 ");
    const auto last = out.find(fmt::format("line {} : an unrelated line {} ", n, n));
    REQUIRE(attributed != std::string::npos);
    REQUIRE(first != std::string::npos);
    REQUIRE(last != std::string::npos);
    CHECK(attributed < first);
    CHECK(first < last);
    CHECK(out.find("line 2 : ") == std::string::npos);
    CHECK(contains(out, fmt::format("{} lines, 1 with values (2 values), {} attributed to nothing", n, n - 1)));
    // In order: each unattributed line after the one before it.
    std::size_t at = first;
    for (std::size_t i = 3; i <= n; i += 997) {
        const auto next = out.find(fmt::format("line {} : an unrelated line {} ", i, i), at);
        REQUIRE(next != std::string::npos);
        at = next;
    }
}

TEST_CASE("explain --log: a value written again from what the text printer kept reads as when rendered anew")
{
    // Values repeated line after line, at two depths of the printer (a line and an --line report), in colour too.
    std::string log;
    for (int i = 0; i < 50; ++i)
        log += fmt::format("NET/IB : Got completion from peer 10.0.0.2<5872{}> with status={} opcode=0 len=0 vendor err "
                           "129 (Send)\nmlx5_0:mlx5_handle_error_cqe:333:(pid {}): WC error: 12, Message: see\n",
                           i % 3, i % 2 ? 12 : 5, i);
    for (const bool color : {false, true}) {
        const auto render = [&](bool forget) {
            std::istringstream in(log);
            std::ostringstream text;
            auto p = formatters::make_printer({.json = false, .color = color}, text);
            p->begin_document("explain");
            p->begin_object("", "nested");  // one level deeper than explain --log's own lines
            formatters::ExplainLogWriter w(*p);
            explain::scan_log(in, [&](const explain::LogLine& l) {
                explain::LogLine copy = l;
                for (auto& a : copy.found)
                    a.build = forget ? 0 : a.build;  // 0: rendered every time
                w.line(copy);
            });
            w.finish(false);
            p->end_object();
            p->end_document();
            return text.str();
        };
        const std::string kept = render(false), anew = render(true);
        CHECK(kept == anew);
        CHECK(contains(kept, "wc-status 12: RETRY_EXC_ERR"));
    }
}
