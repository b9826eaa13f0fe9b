// One finding laid out, the same in every report that carries findings
// (doctor, path): "  FAIL  port.state        <summary>", why and fix under
// it, the raw values for JSON; and the one-line form of --quiet.
#pragma once

#include <string>
#include <string_view>

#include "formatters/printer.hpp"
#include "src/finding.hpp"

namespace qps::fmt_out {

// "ok", "WARN", "FAIL", "skip".
std::string status_word(health::Status s);
// One list element (call inside a begin_list).
void render_finding(const health::Finding& f, Printer& p);
// "FAIL port.state <where>: <summary>; fix: <fix>" (no where: "FAIL id: ...").
std::string finding_line(const health::Finding& f, std::string_view where);

}  // namespace qps::fmt_out
