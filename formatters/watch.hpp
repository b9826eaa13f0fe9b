// `watch`'s records laid out: one text line each (coloured by severity on
// a terminal), or one JSON document each for JSON Lines
// (docs/schema/watch.schema.json).
#pragma once

#include <string>

#include "formatters/printer.hpp"
#include "src/watch/records.hpp"

namespace qps::formatters {

// "19:57:00.123  ERROR  rxe0/1  port_state  ACTIVE -> DOWN  physical state DISABLED: the port left ..."
// The time is the record's own (UTC); bytes from outside are escaped.
std::string watch_line(const watch::WatchRecord& r, bool color);

// The record's members (inside a document: make_json_lines_printer's).
void render_watch_record(const watch::WatchRecord& r, Printer& p);

}  // namespace qps::formatters
