// One finding laid out, the same in every report that carries findings
// (doctor, path): "  FAIL  port.state        <summary>", why and fix under
// it, the raw values for JSON; and the one-line form of --quiet.
#pragma once

#include <string>
#include <string_view>

#include "formatters/printer.hpp"
#include "src/finding.hpp"

namespace qps::formatters {

// "ok", "WARN", "FAIL", "skip".
std::string status_word(Status s);
// One list element (call inside a begin_list).
void render_finding(const Finding& f, Printer& p);
// "FAIL port.state <where>: <summary>; fix: <fix>" (no where: "FAIL id: ...").
std::string finding_line(const Finding& f, std::string_view where);

}  // namespace qps::formatters
