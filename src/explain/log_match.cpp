#include "src/explain/log_match.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <infiniband/verbs.h>
#include <map>
#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>
#include <stdexcept>

#include "src/decode/kernel_log.hpp"
#include "src/decode/qp.hpp"
#include "src/explain/log.hpp"
#include "src/explain/parse.hpp"
#include "src/util/text.hpp"

namespace qps::explain::detail {

using util::lower;

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

namespace {

// The device names of the providers, and a port after ':'.
constexpr std::string_view device_regex_text =
    R"(\b((?:mlx[45]|rxe|siw|bnxt_re|irdma|efa|hfi1|qedr|erdma|hns|mana|ionic|ocrdma|cxgb4|iwp|vmw_pvrdma|qib|mthca)_?\d+)(?::(\d+))?)";
// The literal every match of it starts with (its prefilter: FilteredRE2
// gives up on that many alternatives, and would run it on every line).
constexpr std::string_view device_prefixes[] = {"mlx4", "mlx5", "rxe", "siw", "bnxt_re", "irdma", "efa",
                                                "hfi1", "qedr", "erdma", "hns", "mana", "ionic", "ocrdma",
                                                "cxgb4", "iwp", "vmw_pvrdma", "qib", "mthca"};

// A log is bytes, not UTF-8: one byte is one character (as std::regex read
// it before), so a line that is not UTF-8 is matched like any other.
RE2::Options log_regex_options(bool case_sensitive)
{
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    o.set_case_sensitive(case_sensitive);
    o.set_log_errors(false);
    return o;
}

}  // namespace

std::string match_lead(std::string_view re)
{
    constexpr std::string_view operators = ".+*?()|[]{}^$";
    constexpr std::string_view quantifiers = "?*+{";
    // An alternative at the top level ("a|b"): its matches start with different things.
    int depth = 0;
    bool in_class = false;
    for (std::size_t i = 0; i < re.size(); ++i) {
        const char c = re[i];
        if (c == '\\') {
            ++i;
        } else if (in_class) {
            if (re.substr(i, 2) == "[:")  // "[[:space:]]": a named class inside a class
                i = std::min(re.find(":]", i + 2), re.size()) + 1;
            else if (c == ']')
                in_class = false;
        } else if (c == '[') {
            in_class = true;
            if (i + 1 < re.size() && re[i + 1] == '^')
                ++i;
            if (i + 1 < re.size() && re[i + 1] == ']')  // "[]a]": the first ']' is a member
                ++i;
        } else if (c == '(') {
            ++depth;
        } else if (c == ')') {
            --depth;
        } else if (c == '|' && depth == 0) {
            return {};
        }
    }
    std::string lead;
    for (std::size_t i = re.substr(0, 2) == "\\b" ? 2 : 0; i < re.size(); ++i) {
        char c = re[i];
        if (c == '\\') {  // "\(" is a literal '(', "\d" or "\b" is not
            if (i + 1 == re.size() || !std::ispunct(static_cast<unsigned char>(re[i + 1])))
                break;
            c = re[++i];
        } else if (operators.find(c) != std::string_view::npos) {
            break;
        }
        if (static_cast<unsigned char>(c) >= 0x80 ||
            (i + 1 < re.size() && quantifiers.find(re[i + 1]) != std::string_view::npos))
            break;
        lead += c;
    }
    return lower(lead);
}

struct LogMatcher::Impl {
    // What one literal of the prefilter stands for.
    enum class Stands : unsigned char { atom, status, errno_word, kernel_event, device, pattern };
    struct LiteralTarget {
        Stands what;
        int index;  // the FilteredRE2 atom, or the entry of its table
    };
    re2::FilteredRE2 filter;
    std::vector<int> pattern_of;  // FilteredRE2 id -> log_patterns() index
    std::vector<int> filter_id;   // log_patterns() index -> FilteredRE2 id; -1 for a scanner
    std::vector<std::string> lead;  // log_patterns() index -> match_lead of its regex
    std::unique_ptr<RE2> device;
    std::vector<std::unique_ptr<RE2>> kernel;
    RE2::Set literals{[] {
                          RE2::Options o = log_regex_options(true);
                          o.set_literal(true);
                          o.set_max_mem(64 << 20);  // the DFA of a few hundred words, with room to spare
                          return o;
                      }(),
                      RE2::UNANCHORED};
    std::vector<std::vector<LiteralTarget>> targets;  // per literal of the Set
    std::vector<int> unfiltered;                      // the FilteredRE2 ids that pass with no atom found
};

LogMatcher::LogMatcher() : impl_(std::make_unique<Impl>())
{
    Impl& m = *impl_;
    using Stands = Impl::Stands;
    const auto pats = log_patterns();
    m.filter_id.assign(pats.size(), -1);
    m.lead.resize(pats.size());
    const auto add_regex = [&](std::string_view id, std::string_view text, bool case_sensitive) {
        int fid = -1;
        if (m.filter.Add(text, log_regex_options(case_sensitive), &fid) != RE2::NoError)
            throw std::logic_error(fmt::format("explain: the log pattern '{}' is not a valid RE2 regex: {}", id,
                                               RE2(text, log_regex_options(case_sensitive)).error()));
        return fid;
    };
    for (std::size_t i = 0; i < pats.size(); ++i)
        if (pats[i].scan == Scan::regex) {
            m.filter_id[i] = add_regex(pats[i].id, pats[i].regex, false);
            m.lead[i] = match_lead(pats[i].regex);
            m.pattern_of.resize(static_cast<std::size_t>(m.filter_id[i]) + 1, -1);
            m.pattern_of[static_cast<std::size_t>(m.filter_id[i])] = static_cast<int>(i);
        }
    m.device = std::make_unique<RE2>(device_regex_text, log_regex_options(true));
    if (!m.device->ok())
        throw std::logic_error(fmt::format("explain: the device regex is not a valid RE2 regex: {}", m.device->error()));
    for (const auto& e : decode::kernel_log_events) {
        m.kernel.push_back(std::make_unique<RE2>(e.regex, log_regex_options(false)));
        if (!m.kernel.back()->ok())
            throw std::logic_error(fmt::format("explain: the kernel event '{}' is not a valid RE2 regex: {}", e.id,
                                               m.kernel.back()->error()));
    }

    // One literal of the Set for each distinct string, standing for everything that needs it.
    std::map<std::string, std::vector<Impl::LiteralTarget>> words;
    std::vector<std::string> atoms;
    m.filter.Compile(&atoms);
    for (std::size_t a = 0; a < atoms.size(); ++a)
        words[atoms[a]].push_back({Stands::atom, static_cast<int>(a)});
    const auto& status = status_texts();
    for (std::size_t i = 0; i < status.size(); ++i) {
        words[status[i].text].push_back({Stands::status, static_cast<int>(i)});
        words[status[i].name].push_back({Stands::status, static_cast<int>(i)});
    }
    const auto& errnos = errno_texts();
    for (std::size_t i = 0; i < errnos.size(); ++i) {
        words[errnos[i].text].push_back({Stands::errno_word, static_cast<int>(i)});
        words[lower(errnos[i].name)].push_back({Stands::errno_word, static_cast<int>(i)});
    }
    for (std::size_t i = 0; i < decode::kernel_log_events.size(); ++i)
        words[std::string(decode::kernel_log_events[i].needle)].push_back({Stands::kernel_event, static_cast<int>(i)});
    for (const auto prefix : device_prefixes)
        words[std::string(prefix)].push_back({Stands::device, 0});
    // A regex FilteredRE2 found no literal in would run on every line: its
    // words from the table (LogPattern::needs) stand in.
    std::vector<int> unfiltered;
    m.filter.AllPotentials({}, &unfiltered);
    for (const int id : unfiltered) {
        const int i = m.pattern_of[static_cast<std::size_t>(id)];
        const auto needs = pats[static_cast<std::size_t>(i)].needs;
        if (needs.empty()) {
            m.unfiltered.push_back(id);
            continue;
        }
        for (std::size_t from = 0; from <= needs.size();) {
            const auto bar = std::min(needs.find('|', from), needs.size());
            words[std::string(needs.substr(from, bar - from))].push_back({Stands::pattern, i});
            from = bar + 1;
        }
    }
    for (auto& [word, targets] : words) {
        std::string error;
        if (m.literals.Add(word, &error) < 0)
            throw std::logic_error(fmt::format("explain: the prefilter cannot take '{}': {}", word, error));
        m.targets.push_back(std::move(targets));
    }
    if (!m.literals.Compile())
        throw std::logic_error("explain: the prefilter's literals do not compile (out of memory)");
}

LogMatcher::~LogMatcher() = default;

const LogMatcher& LogMatcher::get()
{
    static const LogMatcher matcher;
    return matcher;
}

void LogMatcher::candidates(std::string_view lower_line, LineCandidates& out) const
{
    const Impl& m = *impl_;
    using Stands = Impl::Stands;
    const std::size_t n = log_patterns().size();
    out.pattern.assign(n, 0);
    out.status.clear();
    out.errnos.clear();
    out.kernel_event.clear();
    out.device = false;

    thread_local std::vector<int> hits, atoms, potentials;
    hits.clear();
    atoms.clear();
    const re2::StringPiece text(lower_line.data(), lower_line.size());
    RE2::Set::ErrorInfo error{RE2::Set::kNoError};
    // Most lines of most logs hold none of the literals: asked only whether one
    // is there, the Set stops at the first and keeps no list; the list is asked
    // for only then. After lines that held one (a log of errors: every line)
    // the list is asked for at once, in one pass (LineCandidates::hit_run).
    const bool listed = out.hit_run >= 2;
    const bool any = m.literals.Match(text, listed ? &hits : nullptr, &error);
    const auto pass = [&](const std::vector<int>& ids) {
        for (const int id : ids)
            out.pattern[static_cast<std::size_t>(m.pattern_of[static_cast<std::size_t>(id)])] = 1;
    };
    out.hit_run = any ? std::min(out.hit_run + 1, 2u) : 0;
    if (!any && error.kind == RE2::Set::kNoError) {
        pass(m.unfiltered);  // no literal in the line: only what needs none
        return;
    }
    if (error.kind != RE2::Set::kNoError ||
        (!listed && !m.literals.Match(text, &hits, &error) && error.kind != RE2::Set::kNoError)) {
        // The Set's DFA could not run on this line: every entry is a candidate (slower, never wrong).
        const auto every = [](std::vector<int>& v, std::size_t size) {
            v.resize(size);
            for (std::size_t i = 0; i < size; ++i)
                v[i] = static_cast<int>(i);
        };
        out.pattern.assign(n, 1);
        every(out.status, status_texts().size());
        every(out.errnos, errno_texts().size());
        every(out.kernel_event, decode::kernel_log_events.size());
        out.device = true;
        return;
    }
    for (const int h : hits)
        for (const auto& t : m.targets[static_cast<std::size_t>(h)])
            switch (t.what) {
            case Stands::atom: atoms.push_back(t.index); break;
            case Stands::status: out.status.push_back(t.index); break;
            case Stands::errno_word: out.errnos.push_back(t.index); break;
            case Stands::kernel_event: out.kernel_event.push_back(t.index); break;
            case Stands::device: out.device = true; break;
            case Stands::pattern: out.pattern[static_cast<std::size_t>(t.index)] = 1; break;
            }
    // In table order, each once (a text and a name of one entry may both be in the line).
    for (auto* v : {&out.status, &out.errnos, &out.kernel_event}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    if (atoms.empty()) {
        pass(m.unfiltered);
    } else {
        auto it = out.filter_answers.find(atoms);
        if (it == out.filter_answers.end()) {
            if (out.filter_answers.size() >= 256)
                out.filter_answers.clear();
            m.filter.AllPotentials(atoms, &potentials);
            it = out.filter_answers.emplace(atoms, potentials).first;
        }
        pass(it->second);
    }
}

const RE2& LogMatcher::pattern(std::size_t i) const
{
    return impl_->filter.GetRE2(impl_->filter_id.at(i));
}

std::string_view LogMatcher::lead(std::size_t i) const
{
    if (i >= impl_->lead.size())
        return {};
    return impl_->lead[i];
}

const RE2& LogMatcher::kernel_event(std::size_t i) const { return *impl_->kernel.at(i); }

std::vector<std::string_view> LogMatcher::unfiltered() const
{
    std::vector<std::string_view> out;
    for (const int id : impl_->unfiltered)
        out.push_back(log_patterns()[static_cast<std::size_t>(impl_->pattern_of[static_cast<std::size_t>(id)])].id);
    return out;
}

const RE2& LogMatcher::device() const { return *impl_->device; }

}  // namespace qps::explain::detail
