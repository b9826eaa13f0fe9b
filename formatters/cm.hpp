// Layouts of the `cm` commands' reports.
#pragma once

#include "formatters/printer.hpp"
#include "src/report/cm_id.hpp"

namespace qps::formatters {

// `cm list`: one row per rdma_cm ID; a line saying there is none instead of
// an empty table (JSON: an empty array).
void render_cm_list(const report::CmListReport& report, Printer& p);

}  // namespace qps::formatters
