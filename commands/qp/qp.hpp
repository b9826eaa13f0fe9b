#pragma once

#include <CLI/CLI.hpp>

#include "commands/app.hpp"

namespace qps::cli {

void register_qp_create(CLI::App& qp, const GlobalOptions& global);
void register_qp_modify(CLI::App& qp, const GlobalOptions& global);
void register_qp_query(CLI::App& qp, const GlobalOptions& global);
void register_qp_list(CLI::App& qp, const GlobalOptions& global);
void register_qp_post(CLI::App& qp, const GlobalOptions& global);
void register_qp_destroy(CLI::App& qp, const GlobalOptions& global);
// The hidden `__holder` command that `qp create` starts in the background.
void register_qp_holder(CLI::App& app);

// Prints a report through the printer chosen by the global options.
template <class Render>
void emit(const GlobalOptions& global, std::string_view command, Render&& render);

}  // namespace qps::cli

#include <iostream>

namespace qps::cli {
template <class Render>
void emit(const GlobalOptions& global, std::string_view command, Render&& render)
{
    auto printer = fmt_out::make_printer(global.printer(), std::cout);
    printer->begin_document(command);
    render(*printer);
    printer->end_document();
}
}  // namespace qps::cli
