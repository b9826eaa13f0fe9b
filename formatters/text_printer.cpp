// Aligned text: headings indent their contents; consecutive fields share one
// label column; tables get one column width per column. Every string is
// shown through util::escape_text (headings, labels, values, notes): bytes
// from outside never reach the terminal as control characters. What a
// headed section prints is written when the section ends (one write, not
// one a line: explain --log's report is a section a line read), or 64 KiB
// at a time; outside every section at once.
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <ostream>
#include <span>
#include <unordered_map>

#include "formatters/printer.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::formatters {

namespace {

class TextPrinter final : public Printer {
public:
    TextPrinter(std::ostream& out, bool color) : out_(out), color_(color) {}
    ~TextPrinter() override { drain(); }  // a formatter that threw part-way: what it printed still goes out

    void begin_document(std::string_view) override {}
    void end_document() override
    {
        flush_fields();
        drain();
    }

    void begin_object(std::string_view, std::string_view heading) override { open(heading); }
    void end_object() override { close(); }
    void begin_list(std::string_view, std::string_view heading) override { open(heading); }
    void end_list() override { close(); }

    void field(std::string_view, std::string_view label, const Value& value) override
    {
        Pending& p = next_pending(false);
        util::append_escaped(p.label, label);
        append_shown(p.text, value);
    }
    void item(const Value& value) override { append_shown(next_pending(true).text, value); }
    void field_text(std::string_view, std::string_view label, std::string_view text) override
    {
        Pending& p = next_pending(false);
        util::append_escaped(p.label, label);
        util::append_escaped(p.text, text);
    }
    void item_text(std::string_view text) override { util::append_escaped(next_pending(true).text, text); }
    void datum(std::string_view, const Value&) override {}
    void datum_text(std::string_view, std::string_view) override {}

    void table(std::string_view, std::string_view heading, const Table& t) override
    {
        flush_fields();
        if (!heading.empty())
            line(bold(shown(heading)));
        // Every cell's text in one string (a table may have tens of
        // thousands of rows): row r's cells end at ends[first[r]..first[r+1]),
        // cell k shows dws[k] columns wide (UTF-8: fewer than its bytes).
        std::string text;
        std::vector<std::size_t> ends, first;
        std::vector<std::uint32_t> dws;
        std::vector<std::size_t> width(t.columns.size());
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            width[c] = shown(t.columns[c].header).size();  // bytes: a "µs" header is one wider
        for_each_row(t, [&](const std::vector<Value>& row) {
            first.push_back(ends.size());
            for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
                const std::size_t begin = text.size();
                append_shown(text, row[c]);
                ends.push_back(text.size());
                dws.push_back(static_cast<std::uint32_t>(display_width(std::string_view(text).substr(begin))));
                width[c] = std::max<std::size_t>(width[c], dws.back());
            }
        });
        first.push_back(ends.size());
        const std::string pad(2, ' ');
        std::string head;
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            head += fmt::format("{}{}", c ? pad : "", padded(shown(t.columns[c].header), width[c]));
        line(pad + bold(rtrim(head)));
        // Each row into a line of blanks, each cell copied to its column
        // (where every cell's bytes are its columns: ASCII), else cell by
        // cell; trailing blanks taken back.
        std::vector<std::size_t> at(width.size());
        std::size_t line_width = depth_ * 2 + pad.size();
        for (std::size_t c = 0; c < width.size(); ++c) {
            at[c] = line_width;
            line_width += width[c] + pad.size();
        }
        std::string out, row_text;
        for (std::size_t r = 0; r + 1 < first.size(); ++r) {
            bool ascii = true;
            for (std::size_t k = first[r]; k < first[r + 1] && ascii; ++k)
                ascii = dws[k] == ends[k] - (k == 0 ? 0 : ends[k - 1]);
            std::size_t end;
            if (ascii) {
                row_text.assign(line_width, ' ');
                end = at[0];  // the indent and the pad: kept though the row is blank
                for (std::size_t k = first[r]; k < first[r + 1]; ++k) {
                    const std::size_t begin = k == 0 ? 0 : ends[k - 1];
                    const std::size_t n = ends[k] - begin;
                    const std::size_t col = at[k - first[r]];
                    std::memcpy(row_text.data() + col, text.data() + begin, n);
                    if (n)
                        end = col + n;
                }
                while (end > at[0] && row_text[end - 1] == ' ')  // a cell's own trailing blanks too
                    --end;
            } else {
                row_text.assign(at[0], ' ');
                const std::size_t row_start = row_text.size();
                for (std::size_t k = first[r]; k < first[r + 1]; ++k) {
                    const std::size_t c = k - first[r];
                    const std::size_t begin = k == 0 ? 0 : ends[k - 1];
                    if (c)
                        row_text += pad;
                    row_text.append(text, begin, ends[k] - begin);
                    if (dws[k] < width[c])
                        row_text.append(width[c] - dws[k], ' ');
                }
                end = row_text.size();
                while (end > row_start && row_text[end - 1] == ' ')
                    --end;
            }
            out.append(row_text, 0, end);
            out += '\n';
            if (out.size() >= 64 * 1024) {
                put(out);
                out.clear();
            }
        }
        put(out);
    }

    void note(std::string_view text) override
    {
        flush_fields();
        line(shown(text));
    }

    // The bytes of a kept subtree, by its key: they depend on nothing else
    // but the depth (color is the printer's), so a subtree kept at another
    // depth is rendered again.
    bool replay(std::uint64_t key) override
    {
        flush_fields();
        const auto it = kept_.find(key);
        if (key == 0 || it == kept_.end() || it->second.depth != depth_)
            return false;
        put(it->second.bytes);
        return true;
    }
    void keep_begin(std::uint64_t key) override
    {
        flush_fields();
        keeping_ = {key, buf_.size(), drains_, depth_};
    }
    void keep_end() override
    {
        flush_fields();
        // Kept only when all of it is still in buf_ (none written out half-way) and the sections are closed.
        if (keeping_.key != 0 && drains_ == keeping_.drains && depth_ == keeping_.depth) {
            if (kept_.size() >= kept_limit)
                kept_.clear();  // bounded: memory stays flat however many subtrees
            kept_.insert_or_assign(keeping_.key, Kept{depth_, buf_.substr(keeping_.from)});
        }
        keeping_.key = 0;
    }

private:
    static std::string shown(std::string_view s) { return util::escape_text(s); }

    struct Pending {
        std::string label;
        std::string text;
        bool item;  // a list element: "- text", no label column
    };

    static std::size_t display_width(std::string_view s)
    {
        // UTF-8: count code points, not bytes (for "µs"); ASCII is the common case.
        if (std::all_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; }))
            return s.size();
        return static_cast<std::size_t>(
            std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
    }
    static std::string padded(const std::string& s, std::size_t w)
    {
        const std::size_t dw = display_width(s);
        return dw >= w ? s : s + std::string(w - dw, ' ');
    }
    static std::string rtrim(std::string s)
    {
        s.erase(s.find_last_not_of(' ') + 1);
        return s;
    }
    std::string bold(std::string_view s) const
    {
        return color_ ? fmt::format("\033[1m{}\033[0m", s) : std::string(s);
    }

    void open(std::string_view heading)
    {
        flush_fields();
        if (!heading.empty()) {
            ++depth_;  // the heading line is the section's: written with it
            line_.assign(static_cast<std::size_t>(depth_ - 1) * 2, ' ');
            if (color_)
                line_ += "\033[1m";
            util::append_escaped(line_, heading);
            if (color_)
                line_ += "\033[0m";
            end_line();
        }
        headed_.push_back(!heading.empty());
    }
    void close()
    {
        flush_fields();
        if (!headed_.empty()) {
            if (headed_.back())
                --depth_;
            headed_.pop_back();
        }
        if (depth_ == 0)
            drain();
    }
    // The next of pending_, its strings emptied (their memory kept from field to field).
    Pending& next_pending(bool item)
    {
        if (npending_ == pending_.size())
            pending_.emplace_back();
        Pending& p = pending_[npending_++];
        p.label.clear();
        p.text.clear();
        p.item = item;
        return p;
    }
    void flush_fields()
    {
        if (npending_ == 0)
            return;
        const std::span<const Pending> pending(pending_.data(), npending_);
        std::size_t w = 0;
        for (const auto& p : pending)
            if (!p.item)
                w = std::max(w, display_width(p.label));
        line_.clear();  // the fields' lines, written at once
        for (const auto& p : pending) {
            // "- text", or "label : text" with the label padded to the column (as padded() does).
            line_.append(static_cast<std::size_t>(depth_) * 2, ' ');
            if (p.item) {
                line_ += "- ";
            } else {
                line_ += p.label;
                line_.append(w - std::min(w, display_width(p.label)), ' ');
                line_ += " : ";
            }
            line_ += p.text;
            line_ += '\n';
        }
        put(line_);
        npending_ = 0;
    }
    void line(std::string_view s)
    {
        start_line();
        line_ += s;
        end_line();
    }
    // One line is built in line_ and written at once (a log's report is a line per line read).
    void start_line() { line_.assign(static_cast<std::size_t>(depth_) * 2, ' '); }
    void end_line()
    {
        line_ += '\n';
        put(line_);
    }
    // Printed text to buf_: written out now outside every section, else when its section ends (or buf_ is full).
    void put(std::string_view s)
    {
        buf_ += s;
        if (depth_ == 0 || buf_.size() >= 64 * 1024)
            drain();
    }
    void drain()
    {
        if (buf_.empty())
            return;
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
        ++drains_;
    }

    std::ostream& out_;
    bool color_;
    int depth_ = 0;
    std::vector<bool> headed_;
    std::vector<Pending> pending_;  // the first npending_ are pending
    std::size_t npending_ = 0;
    std::string line_;
    std::string buf_;         // printed, not yet written (put)
    std::size_t drains_ = 0;  // how many times buf_ was written out
    struct Kept {
        int depth;
        std::string bytes;
    };
    static constexpr std::size_t kept_limit = 1024;
    std::unordered_map<std::uint64_t, Kept> kept_;  // replay's subtrees
    struct Keeping {
        std::uint64_t key = 0;  // 0: none being kept
        std::size_t from = 0;   // where in buf_ it starts
        std::size_t drains = 0;
        int depth = 0;
    } keeping_;
};

}  // namespace

std::unique_ptr<Printer> make_text_printer(std::ostream& out, bool color)
{
    return std::make_unique<TextPrinter>(out, color);
}

}  // namespace qps::formatters
