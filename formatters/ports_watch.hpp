#pragma once

#include <string>
#include <string_view>

#include "formatters/printer.hpp"
#include "src/report/ports_watch.hpp"

namespace qps::formatters {

// Lays out one `ports --watch` sample: a document per sample (one JSON
// line, or one screenful of tables). Field names are the JSON contract
// documented in man/qpscope-ports.1.
void render_watch_sample(const report::WatchSample& sample, Printer& p);

// A screenful of text redrawn in place on a terminal: cursor home, each line
// cleared to its end, and the rest of the screen cleared below the text, so
// a shorter frame leaves nothing of the previous one and nothing flickers.
std::string terminal_frame(std::string_view text);

}  // namespace qps::formatters
