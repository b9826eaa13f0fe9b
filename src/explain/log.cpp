#include "src/explain/log.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <unordered_map>
#include <infiniband/verbs.h>
#include <re2/re2.h>

#include "src/decode/kernel_consumer.hpp"
#include "src/decode/kernel_log.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/explain/log_cache.hpp"
#include "src/explain/log_match.hpp"
#include "src/explain/parse.hpp"
#include "src/util/outside_bytes.hpp"
#include "src/util/text.hpp"

namespace qps::explain {

using util::trim;

using namespace detail;

namespace {

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

// GIDs: runs of hex digits, ':' and '.', parsed as IPv6. A run that starts
// inside a word ("remoteGids::ffff:...", "localGid::...") starts at its first ':'.
std::vector<std::string> gids_in(std::string_view line)
{
    std::vector<std::string> out;
    // isxdigit() and isalpha() of the C locale: ASCII only.
    const auto is_gid_char = [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    };
    const auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    // A run without a colon is no GID: each run is found from a colon in it.
    for (std::size_t from = 0, colon; (colon = line.find(':', from)) != std::string_view::npos;) {
        std::size_t i = colon, j = colon + 1;
        while (i > 0 && is_gid_char(line[i - 1]))
            --i;
        while (j < line.size() && is_gid_char(line[j]))
            ++j;
        from = j;
        std::string_view run = line.substr(i, j - i);
        if (i > 0 && is_alpha(line[i - 1]))
            run = run.substr(run.find(':'));
        while (!run.empty() && run.back() == '.')
            run.remove_suffix(1);
        const auto colons = std::count(run.begin(), run.end(), ':');
        // IPv6 text has "::", or eight groups (seven colons), or six and an IPv4 address (six):
        // anything else inet_pton refuses ("02:33:12", "node1:12345:12400").
        if (colons < 2 || (colons < 6 && run.find("::") == std::string_view::npos))
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

// Each match of `re` (regex `id` of `cache`) in `text`, left to right and not
// overlapping (as std::regex_iterator found them, the text before a match
// its context for \b): `on` gets the groups, [0] the match, a group that
// took no part null, and returns whether to go on. `lead`: what every match
// starts with (LogMatcher::lead), found in `lower` (`text` lower-cased):
// each search starts at its next occurrence, and none is run after the last
// (most of a line is before its match, or after it). A match is tried
// anchored at the lead first: one forward DFA pass, where the unanchored
// search takes a second, backwards, to find where the match starts. After
// the first lead that starts no match the rest is searched unanchored: an
// anchored try can run to the end of the line, and one failed try a search
// keeps the whole linear in the line.
template <class On>
void each_match(const RE2& re, std::uint32_t id, std::string_view text, std::string_view lower,
                std::string_view lead, GroupCache& cache, On&& on)
{
    const re2::StringPiece all(text.data(), text.size());
    re2::StringPiece span;
    bool anchored = !lead.empty();
    for (std::size_t at = 0; at <= text.size();) {
        if (!lead.empty() && (at = lower.find(lead, at)) == std::string_view::npos)
            return;
        if (anchored && !re.Match(all, at, text.size(), RE2::ANCHOR_START, &span, 1)) {
            anchored = false;  // no match starts here: the next one from the next lead on
            ++at;
            continue;
        }
        if (!anchored && !re.Match(all, at, text.size(), RE2::UNANCHORED, &span, 1))
            return;
        if (!on(cache.groups(re, id, text, span)))
            return;
        const auto end = static_cast<std::size_t>(span.data() - text.data()) + span.size();
        at = span.empty() ? end + 1 : end;
    }
}

std::string group_text(const re2::StringPiece& g) { return std::string(g.data(), g.size()); }

// Each verb with the call a line names it by ("ibv_modify_qp", "rdma_resolve_addr"), built once.
struct VerbCall {
    std::string verb, call;
};
const std::vector<VerbCall>& verb_calls()
{
    static const std::vector<VerbCall> calls = [] {
        std::vector<VerbCall> out;
        for (auto& v : verb_names()) {
            std::string call = v.rfind("rdma_", 0) == 0 ? v : "ibv_" + v;
            out.push_back({std::move(v), std::move(call)});
        }
        return out;
    }();
    return calls;
}

// What LineScan keeps from line to line: no allocation a line, and the attributions built.
struct ScanState {
    std::string lower;
    LineCandidates may;
    AttributionCache cache;
    std::string key;
    GroupCache groups;
};

class LineScan {
public:
    // The line's attributions into `found` (empty: its memory kept from line to line).
    LineScan(std::string_view line, ScanState& state, std::vector<Attribution>& found)
        : found_(found), line_(line), lower_(state.lower), may_(state.may), cache_(state.cache), key_(state.key),
          groups_(state.groups)
    {
        lower_.assign(line);
        for (auto& c : lower_)  // util::lower, in place (no branch: the loop vectorises)
            c = static_cast<char>(c | (static_cast<unsigned char>(c - 'A') < 26 ? 0x20 : 0));
        matcher_.candidates(lower_, may_);
    }

    void run()
    {
        const auto pats = log_patterns();
        for (std::size_t i = 0; i < pats.size(); ++i)
            if (pats[i].scan != Scan::regex || may_.pattern[i])  // a regex the prefilter ruled out: not even called
                scan(i, pats[i]);
    }

private:
    void scan(std::size_t index, const LogPattern& p)
    {
        const LogMatcher& m = matcher_;
        switch (p.scan) {
        case Scan::regex:
            if (!may_.pattern[index])
                break;  // the prefilter: the regex's literal parts are not all in the line
            each_match(m.pattern(index), static_cast<std::uint32_t>(index), line_, lower_, m.lead(index), groups_,
                       [&](const std::vector<re2::StringPiece>& g) {
                           for (std::size_t i = 1; i < g.size(); ++i)
                               if (g[i].data() != nullptr) {  // the first group that took part
                                   add(p, group_text(g[i]));
                                   break;
                               }
                           return true;
                       });
            break;
        case Scan::wc_status_text: {
            for (const int i : may_.status) {
                const auto& t = status_texts()[static_cast<std::size_t>(i)];
                if (contains_phrase(lower_, t.text) || contains_phrase(lower_, t.name))
                    add(p, std::to_string(t.value));
            }
            break;
        }
        case Scan::errno_text: {
            for (const int i : may_.errnos) {
                const auto& t = errno_texts()[static_cast<std::size_t>(i)];
                if (contains_phrase(lower_, t.text) || contains_phrase(line_, t.name))
                    add(p, std::to_string(t.value));
            }
            break;
        }
        case Scan::gid:
            if (std::count(line_.begin(), line_.end(), ':') >= 2)  // a GID's run holds two
                for (const auto& g : gids_in(line_))
                    add(p, g);
            break;
        case Scan::kernel_event:
            for (const int i : may_.kernel_event) {
                const auto& e = decode::kernel_log_events[static_cast<std::size_t>(i)];
                if (RE2::PartialMatch(re2::StringPiece(line_.data(), line_.size()), m.kernel_event(static_cast<std::size_t>(i))))
                    add(p, std::string(e.id), kernel_event_source(e));
            }
            break;
        case Scan::device_port:
            if (may_.device)
                each_match(m.device(), device_id, line_, {}, {}, groups_, [&](const std::vector<re2::StringPiece>& g) {
                    if (g[2].data() != nullptr)
                        add(p, group_text(g[1]) + ":" + group_text(g[2]));
                    return true;
                });
            break;
        }
    }

    // What the line says around its values, read when a value needs it
    // (most lines have none): the provider its first device implies, and
    // the verb it names ("ibv_modify_qp", "rdma_resolve_addr"), whose errno
    // an errno is read as.
    const std::string& vendor()
    {
        if (!vendor_read_) {
            vendor_read_ = true;
            if (may_.device)  // the first device's (RE2::PartialMatch's first group)
                each_match(matcher_.device(), device_id, line_, {}, {}, groups_,
                           [&](const std::vector<re2::StringPiece>& g) {
                               vendor_ = vendor_of_device(std::string_view(g[1].data(), g[1].size()));
                               return false;
                           });
        }
        return vendor_;
    }
    const std::string& verb()
    {
        if (!verb_read_) {
            verb_read_ = true;
            // every call starts "ibv_" or "rdma_": a line with neither names none
            if (lower_.find("ibv_") != std::string::npos || lower_.find("rdma_") != std::string::npos)
                for (const auto& v : verb_calls())
                    if (contains_phrase(lower_, v.call)) {
                        verb_ = v.verb;
                        break;
                    }
        }
        return verb_;
    }

    // The key of an attribution in the cache: each part with its length before it.
    void key_part(std::string_view part)
    {
        const auto n = static_cast<std::uint32_t>(part.size());
        key_.append(reinterpret_cast<const char*>(&n), sizeof n);
        key_.append(part);
    }

    void add(const LogPattern& p, const std::string& value, std::string source = {})
    {
        const std::string& vendor = p.vendor.empty() ? this->vendor() : empty_;
        const std::string& verb = p.topic == "errno" ? this->verb() : empty_;
        key_.clear();
        for (const std::string_view part : {p.id, std::string_view(value), std::string_view(source),
                                            std::string_view(vendor), std::string_view(verb)})
            key_part(part);
        AttributionCache::Entry* e = cache_.find(key_);
        if (!e)
            e = &cache_.put(key_, attribution(p, value, std::move(source), vendor, verb));
        if (!e->found || e->lent)
            return;  // none of the topic's, or in this line already (the same attribution: dropped below)
        const Attribution& a = *e->found;
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
        cache_.lend(found_.size(), key_);
        found_.push_back(std::move(*e->found));
        e->lent = true;
    }

    // What add() finds for a value: its attribution, nullopt when the value is none of the topic's.
    static std::optional<Attribution> attribution(const LogPattern& p, const std::string& value, std::string source,
                                               const std::string& vendor, const std::string& verb)
    {
        Attribution a{std::string(p.id), source.empty() ? std::string(p.source) : std::move(source), value, {}, 0};
        if (p.topic == "port") {
            a.explanation = device_port(value);
        } else {
            Context c;
            c.vendor = p.vendor.empty() ? vendor : std::string(p.vendor);
            c.verb = verb;
            try {
                a.explanation = explain(p.topic, value, c);
                if (!a.explanation.decoded && !c.verb.empty()) {
                    c.verb.clear();  // an errno the verb is not known to return: the errno alone
                    a.explanation = explain(p.topic, value, c);
                }
            } catch (const UsageError& e) {
                if (!number_of(value))
                    return std::nullopt;  // a word that is not one of the topic's names: not this topic
                a.explanation = start(p.topic, value);
                a.explanation.name = "unknown";
                a.explanation.decoded = false;
                a.explanation.facts.push_back({"error", "not decoded", e.what()});
            }
        }
        return a;
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

    static constexpr auto device_id = static_cast<std::uint32_t>(-1);  // the device regex's in groups_
    std::vector<Attribution>& found_;
    const LogMatcher& matcher_ = LogMatcher::get();
    std::string_view line_;
    std::string& lower_;
    LineCandidates& may_;
    AttributionCache& cache_;
    std::string& key_;
    GroupCache& groups_;
    bool vendor_read_ = false, verb_read_ = false;
    std::string vendor_;
    std::string verb_;
    const std::string empty_;
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

std::vector<Attribution> attribute_line(std::string_view line)
{
    ScanState state;
    std::vector<Attribution> found;
    LineScan(line, state, found).run();
    return found;
}

void scan_log(std::istream& in, const std::function<void(const LogLine&)>& each)
{
    ScanState state;  // kept from line to line
    LogLine l;
    for (std::size_t number = 1; std::getline(in, l.text); ++number) {
        if (!l.text.empty() && l.text.back() == '\r')
            l.text.pop_back();
        if (trim(l.text).empty())
            continue;
        l.number = number;
        l.utf8 = util::is_utf8(l.text);
        LineScan(l.text, state, l.found).run();
        each(l);
        state.cache.give_back(l.found);
    }
}

LogReport explain_log(std::istream& in)
{
    LogReport r;
    scan_log(in, [&](const LogLine& l) { r.lines.push_back(l); });
    return r;
}

}  // namespace qps::explain
