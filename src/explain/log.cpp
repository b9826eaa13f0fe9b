#include "src/explain/log.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cstring>
#include <fmt/format.h>
#include <infiniband/verbs.h>
#include <regex>

#include "src/decode/kernel_consumer.hpp"
#include "src/decode/kernel_log.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/explain/parse.hpp"
#include "src/util/outside_bytes.hpp"
#include "src/util/text.hpp"

namespace qps::explain {

using util::trim;
using util::lower;

using namespace detail;

namespace {

struct KnownText {
    std::int64_t value;
    std::string text;  // lower case
    std::string name;  // "ibv_wc_retry_exc_err" (lower case), "EINVAL"
};

// ibv_wc_status_str()'s words for every status but SUCCESS ("success" is in
// too many lines to mean a completion), the IBV_WC_ names, and the kernel's
// words where they differ.
const std::vector<KnownText>& status_texts()
{
    static const std::vector<KnownText> all = [] {
        std::vector<KnownText> out;
        // "fatal error" and "general error" (19, 21) are in too many lines that are not completions
        // ("QP fatal error", "ctrl 1 fatal error occurred!"): only their IBV_WC_ names count.
        for (const auto& s : decode::wc_status_table)
            if (s.value != IBV_WC_SUCCESS) {
                const bool generic = s.value == IBV_WC_FATAL_ERR || s.value == IBV_WC_GENERAL_ERR;
                out.push_back({s.value,
                               generic ? std::string("ibv_wc_" + lower(std::string(s.name)))
                                       : lower(::ibv_wc_status_str(static_cast<ibv_wc_status>(s.value))),
                               lower("IBV_WC_" + std::string(s.name))});
            }
        // Where the kernel's ib_wc_status_msg() (drivers/infiniband/core/verbs.c) words a status differently.
        out.push_back({IBV_WC_WR_FLUSH_ERR, "wr flushed", "ib_wc_wr_flush_err"});
        return out;
    }();
    return all;
}

// strerror()'s words and the E names of every errno.
const std::vector<KnownText>& errno_texts()
{
    static const std::vector<KnownText> all = [] {
        std::vector<KnownText> out;
        for (const auto& name : errno_names()) {
            const Explanation e = explain("errno", name);
            out.push_back({e.raw, lower(e.facts.front().text), name});
        }
        return out;
    }();
    return all;
}

// Compiled once, in log_patterns() order (an empty regex for a scanner).
const std::vector<std::regex>& compiled()
{
    static const std::vector<std::regex> all = [] {
        std::vector<std::regex> out;
        for (const auto& p : log_patterns())
            out.emplace_back(p.scan == Scan::regex ? std::string(p.regex) : std::string("^$"),
                             std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
        return out;
    }();
    return all;
}

// The kernel storage consumers' lines (decode::kernel_log_events), compiled once in the table's order.
const std::vector<std::regex>& kernel_event_regexes()
{
    static const std::vector<std::regex> all = [] {
        std::vector<std::regex> out;
        for (const auto& e : decode::kernel_log_events)
            out.emplace_back(std::string(e.regex), std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
        return out;
    }();
    return all;
}

// "Linux NVMe over Fabrics host (nvme-rdma)": who prints an event's line.
std::string kernel_event_source(const decode::KernelLogEvent& e)
{
    const auto* c = decode::find_kernel_consumer(e.consumer);
    return "Linux " + std::string(c ? c->what : e.consumer);
}

bool word_at(std::string_view hay, std::size_t at, std::size_t len)
{
    const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    return (at == 0 || !is_word(hay[at - 1])) && (at + len >= hay.size() || !is_word(hay[at + len]));
}

// Each occurrence of `needle` (lower case) in `hay` (lower case) as a whole phrase.
bool contains_phrase(std::string_view hay, std::string_view needle)
{
    for (auto at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + 1))
        if (word_at(hay, at, needle.size()))
            return true;
    return false;
}

// The provider a device name implies ("mlx5_0" -> "mlx5").
std::string vendor_of_device(std::string_view device)
{
    std::string v(device);
    while (!v.empty() && std::isdigit(static_cast<unsigned char>(v.back())))
        v.pop_back();
    if (!v.empty() && v.back() == '_')
        v.pop_back();
    return v;
}

const std::regex& device_regex()
{
    static const std::regex re(
        R"(\b((?:mlx[45]|rxe|siw|bnxt_re|irdma|efa|hfi1|qedr|erdma|hns|mana|ionic|ocrdma|cxgb4|iwp|vmw_pvrdma|qib|mthca)_?\d+)(?::(\d+))?)",
        std::regex::ECMAScript | std::regex::optimize);
    return re;
}

// GIDs: runs of hex digits, ':' and '.', parsed as IPv6. A run that starts
// inside a word ("remoteGids::ffff:...", "localGid::...") starts at its first ':'.
std::vector<std::string> gids_in(std::string_view line)
{
    std::vector<std::string> out;
    const auto is_gid_char = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; };
    for (std::size_t i = 0; i < line.size();) {
        if (!is_gid_char(line[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < line.size() && is_gid_char(line[j]))
            ++j;
        std::string_view run = line.substr(i, j - i);
        if (i > 0 && std::isalpha(static_cast<unsigned char>(line[i - 1]))) {
            const auto colon = run.find(':');
            run = colon == std::string_view::npos ? std::string_view() : run.substr(colon);
        }
        while (!run.empty() && run.back() == '.')
            run.remove_suffix(1);
        i = j;
        if (std::count(run.begin(), run.end(), ':') < 2)
            continue;
        // at least two groups with digits: not "d::" or "::"
        int groups = 0;
        bool in_group = false;
        for (char c : run) {
            const bool digit = c != ':';
            groups += digit && !in_group;
            in_group = digit;
        }
        unsigned char bytes[16];
        if (groups >= 2 && ::inet_pton(AF_INET6, std::string(run).c_str(), bytes) == 1)
            out.emplace_back(run);
    }
    return out;
}

class LineScan {
public:
    explicit LineScan(std::string_view line) : line_(line), lower_(lower(line))
    {
        std::cmatch m;
        if (std::regex_search(line_.data(), line_.data() + line_.size(), m, device_regex()))
            vendor_ = vendor_of_device(m.str(1));
        // The verb the line names ("ibv_modify_qp", "rdma_resolve_addr"): an errno is read as that verb's.
        for (const auto& v : verb_names()) {
            const std::string call = v.rfind("rdma_", 0) == 0 ? v : "ibv_" + v;
            if (contains_phrase(lower_, call)) {
                verb_ = v;
                break;
            }
        }
    }

    std::vector<Attribution> run()
    {
        const auto& res = compiled();
        const auto pats = log_patterns();
        for (std::size_t i = 0; i < pats.size(); ++i)
            scan(pats[i], res[i]);
        return std::move(found_);
    }

private:
    void scan(const LogPattern& p, const std::regex& re)
    {
        switch (p.scan) {
        case Scan::regex:
            if (!has_anchor(p.regex))
                break;  // the regex cannot match: its literal words are not in the line
            for (std::cregex_iterator it(line_.data(), line_.data() + line_.size(), re), end; it != end; ++it)
                for (std::size_t g = 1; g < it->size(); ++g)
                    if ((*it)[g].matched) {  // the first group that took part
                        add(p, (*it)[g].str());
                        break;
                    }
            break;
        case Scan::wc_status_text:
            for (const auto& t : status_texts())
                if (contains_phrase(lower_, t.text) || contains_phrase(lower_, t.name))
                    add(p, std::to_string(t.value));
            break;
        case Scan::errno_text:
            for (const auto& t : errno_texts())
                if (contains_phrase(lower_, t.text) || contains_phrase(line_, t.name))
                    add(p, std::to_string(t.value));
            break;
        case Scan::gid:
            for (const auto& g : gids_in(line_))
                add(p, g);
            break;
        case Scan::kernel_event: {
            const auto& res = kernel_event_regexes();
            for (std::size_t i = 0; i < decode::kernel_log_events.size(); ++i) {
                const auto& e = decode::kernel_log_events[i];
                if (lower_.find(e.needle) != std::string::npos &&
                    std::regex_search(line_.data(), line_.data() + line_.size(), res[i]))
                    add(p, std::string(e.id), kernel_event_source(e));
            }
            break;
        }
        case Scan::device_port:
            for (std::cregex_iterator it(line_.data(), line_.data() + line_.size(), device_regex()), end; it != end;
                 ++it)
                if ((*it)[2].matched)
                    add(p, (*it)[1].str() + ":" + (*it)[2].str());
            break;
        }
    }

    void add(const LogPattern& p, const std::string& value, std::string source = {})
    {
        Attribution a{std::string(p.id), source.empty() ? std::string(p.source) : std::move(source), value, {}};
        if (p.topic == "port") {
            a.explanation = device_port(value);
        } else {
            Context c;
            c.vendor = p.vendor.empty() ? vendor_ : std::string(p.vendor);
            c.verb = p.topic == "errno" ? verb_ : std::string();
            try {
                a.explanation = explain(p.topic, value, c);
                if (!a.explanation.decoded && !c.verb.empty()) {
                    c.verb.clear();  // an errno the verb is not known to return: the errno alone
                    a.explanation = explain(p.topic, value, c);
                }
            } catch (const UsageError& e) {
                if (!number_of(value))
                    return;  // a word that is not one of the topic's names: not this topic
                a.explanation = start(p.topic, value);
                a.explanation.name = "unknown";
                a.explanation.decoded = false;
                a.explanation.facts.push_back({"error", "not decoded", e.what()});
            }
        }
        // Once per line: by number (12 and "transport retry counter exceeded" are one status), by the
        // full form for a GID, by the text for a device and port or a value that was not decoded.
        const auto same = [&](const Attribution& f) {
            const auto& x = f.explanation;
            const auto& y = a.explanation;
            if (x.topic != y.topic)
                return false;
            if (y.topic == "gid")
                return x.facts.front().text == y.facts.front().text;
            if (y.topic == "port" || y.topic == "kernel-event" || !y.decoded || !x.decoded)
                return f.value == a.value;
            return x.raw == y.raw;
        };
        if (std::any_of(found_.begin(), found_.end(), same))
            return;
        found_.push_back(std::move(a));
    }

    static Explanation device_port(const std::string& value)
    {
        const auto colon = value.rfind(':');
        const std::string device = value.substr(0, colon), port = value.substr(colon + 1);
        Explanation e = start("port", value);
        e.raw = std::stoll(port);
        e.name = fmt::format("{} port {}", device, port);
        e.facts.push_back({"provider", "provider", vendor_of_device(device)});
        e.checks = {fmt::format("on that host: qpscope doctor -d {} -p {}", device, port),
                    fmt::format("qpscope ports -d {} -p {} (state, rate, MTU, GIDs, error counters)", device, port)};
        return e;
    }

    // The first run of three or more letters of a pattern's regex (outside
    // escapes and groups; none for a regex with alternatives) must be in the
    // line for the regex to match: a cheap test before the slow std::regex.
    bool has_anchor(std::string_view regex) const
    {
        if (regex.find('|') != std::string_view::npos)
            return true;  // alternatives: no one word is needed
        static thread_local std::string word;
        word.clear();
        for (std::size_t i = 0; i < regex.size(); ++i) {
            const char c = regex[i];
            if (c == '\\') {  // an escape such as \b or \d ends a word
                if (word.size() >= 3)
                    break;
                word.clear();
                ++i;
                continue;
            }
            if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ' ' || c == '=') {
                word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                continue;
            }
            if (word.size() >= 3)
                break;
            word.clear();
        }
        while (!word.empty() && word.back() == ' ')
            word.pop_back();
        return word.size() < 3 || lower_.find(word) != std::string::npos;
    }

    std::string_view line_;
    std::string lower_;
    std::string vendor_;
    std::string verb_;
    std::vector<Attribution> found_;
};

}  // namespace

std::size_t LogReport::attributed_lines() const
{
    return static_cast<std::size_t>(
        std::count_if(lines.begin(), lines.end(), [](const LogLine& l) { return !l.found.empty(); }));
}

std::size_t LogReport::values() const
{
    std::size_t n = 0;
    for (const auto& l : lines)
        n += l.found.size();
    return n;
}

bool LogReport::all_decoded() const
{
    for (const auto& l : lines)
        for (const auto& a : l.found)
            if (!a.explanation.decoded)
                return false;
    return true;
}

std::vector<std::size_t> LogReport::not_utf8_lines() const
{
    std::vector<std::size_t> out;
    for (const auto& l : lines)
        if (!l.utf8)
            out.push_back(l.number);
    return out;
}

std::vector<Attribution> attribute_line(std::string_view line) { return LineScan(line).run(); }

LogReport explain_log(std::istream& in)
{
    LogReport r;
    std::string text;
    for (std::size_t number = 1; std::getline(in, text); ++number) {
        if (!text.empty() && text.back() == '\r')
            text.pop_back();
        if (trim(text).empty())
            continue;
        LogLine l;
        l.number = number;
        l.utf8 = util::is_utf8(text);
        l.found = attribute_line(text);
        l.text = std::move(text);
        r.lines.push_back(std::move(l));
    }
    return r;
}

}  // namespace qps::explain
