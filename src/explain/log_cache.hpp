// explain --log's caches, kept from line to line by src/explain/log.cpp's
// scan: a log repeats its values and its matches, and what is built from
// them is a function of them. Each is bounded (emptied when full), so memory
// stays flat however long the log.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <re2/re2.h>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/explain/log.hpp"

namespace qps::explain::detail {

// The groups of a match, by the match and the byte on either side of it
// (all that \b, ^ and $ look at): RE2 finds where a match is with two DFA
// passes, its groups take a third, and a log repeats its matches. Bounded:
// emptied when full.
class GroupCache {
public:
    // The groups of regex `id`'s match `span` in `text`, [0] the match, a group that took no part null.
    const std::vector<re2::StringPiece>& groups(const RE2& re, std::uint32_t id, std::string_view text,
                                                 re2::StringPiece span)
    {
        const auto begin = static_cast<std::size_t>(span.data() - text.data()), end = begin + span.size();
        key_.assign(reinterpret_cast<const char*>(&id), sizeof id);
        key_ += begin == 0 ? std::string_view("\0\0", 2) : std::string_view(&text[begin - 1], 1);
        key_ += begin == 0 ? "" : "\1";
        key_ += end == text.size() ? std::string_view("\0\0", 2) : std::string_view(&text[end], 1);
        key_ += end == text.size() ? "" : "\1";
        key_.append(span.data(), span.size());
        groups_.resize(static_cast<std::size_t>(re.NumberOfCapturingGroups()) + 1);
        auto it = map_.find(key_);
        if (it == map_.end()) {
            // The match again, anchored at both ends: RE2's third pass as the unanchored search runs it.
            const re2::StringPiece all(text.data(), text.size());
            if (!re.Match(all, begin, end, RE2::ANCHOR_BOTH, groups_.data(), static_cast<int>(groups_.size())))
                groups_.assign(groups_.size(), re2::StringPiece());  // not reached: the span is a match
            std::vector<std::pair<std::ptrdiff_t, std::size_t>> at;  // offset in the match (-1: no part), size
            for (const auto& g : groups_)
                at.emplace_back(g.data() ? g.data() - span.data() : -1, g.size());
            if (map_.size() >= limit)
                map_.clear();
            it = map_.emplace(key_, std::move(at)).first;
        }
        for (std::size_t i = 0; i < groups_.size(); ++i) {
            const auto [off, size] = it->second[i];
            groups_[i] = off < 0 ? re2::StringPiece() : re2::StringPiece(span.data() + off, size);
        }
        return groups_;
    }

private:
    static constexpr std::size_t limit = 4096;
    std::unordered_map<std::string, std::vector<std::pair<std::ptrdiff_t, std::size_t>>> map_;
    std::string key_;
    std::vector<re2::StringPiece> groups_;
};

// The attributions add() built, by everything one depends on (the pattern,
// the value, the source, the vendor and the verb of the context): a log
// repeats its values, explain() is a function of them. Bounded: emptied
// when full, so memory stays flat however many values a log holds. An
// attribution is lent to the line that found it (moved, not copied) and
// given back once the line has been handed on.
class AttributionCache {
public:
    struct Entry {
        std::optional<Attribution> found;  // nullopt: the value is none of its topic's (add() keeps nothing)
        bool lent = false;                 // `found` is in the current line's attributions
    };
    Entry* find(const std::string& key)
    {
        const auto it = map_.find(key);
        return it == map_.end() ? nullptr : &it->second;
    }
    Entry& put(const std::string& key, std::optional<Attribution> found)
    {
        if (map_.size() >= limit)
            map_.clear();  // an entry lent now is not given back
        // Numbered across every cache of the process (explain --line scans each line with its own).
        static std::atomic<std::uint64_t> builds{0};
        if (found)
            found->build = ++builds;
        return map_.insert_or_assign(key, Entry{std::move(found), false}).first->second;
    }
    // The current line's attribution i, lent from the entry of `key`.
    void lend(std::size_t i, const std::string& key)
    {
        if (lent_.size() <= i)
            lent_.resize(i + 1);
        lent_[i] = key;
    }
    // Each of the line's attributions back to its entry.
    void give_back(std::vector<Attribution>& found)
    {
        for (std::size_t i = 0; i < found.size(); ++i)
            if (Entry* e = find(lent_[i]); e && e->lent) {
                e->found = std::move(found[i]);
                e->lent = false;
            }
        found.clear();
    }

private:
    static constexpr std::size_t limit = 1024;
    std::unordered_map<std::string, Entry> map_;
    std::vector<std::string> lent_;  // by index in the line's attributions: the key it was lent from
};

}  // namespace qps::explain::detail
