// Layout of `qpscope doctor`: findings grouped by host, device and port
// (one line each, why and fix under a warning or failure), a count, and the
// one-line-per-failure form of --quiet for health-check scripts.
#pragma once

#include <string>
#include <vector>

#include "formatters/printer.hpp"
#include "src/ops/doctor.hpp"

namespace qps::formatters {

void render_doctor(const ops::DoctorReport& r, bool strict, Printer& p);
// --quiet: "FAIL port.state rxe0 port 1: <what was seen>; fix: <fix>" for each
// finding that counts against the host; none on a healthy one.
std::vector<std::string> doctor_failure_lines(const ops::DoctorReport& r, bool strict);

}  // namespace qps::formatters
