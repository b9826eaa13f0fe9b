// Printing one report as one document: the printer's begin_document, the
// formatter, end_document. Every command prints through these.
#pragma once

#include <iostream>
#include <string_view>

#include "commands/app.hpp"
#include "formatters/printer.hpp"

namespace qps::commands {

// One document on `printer`: begin (the command's name), `render`, end.
template <class Render>
void print_document(formatters::Printer& printer, std::string_view command, Render&& render)
{
    printer.begin_document(command);
    render(printer);
    printer.end_document();
}

// One document on stdout, through the printer the global options ask for.
template <class Render>
void emit(const GlobalOptions& global, std::string_view command, Render&& render)
{
    auto printer = formatters::make_printer(global.printer(), std::cout);
    print_document(*printer, command, render);
}

// The same through make_streaming_printer(): for documents of tens of
// thousands of rows (`qp list`, `cm list`), whose formatters give each key
// once and do not throw part-way.
template <class Render>
void emit_streamed(const GlobalOptions& global, std::string_view command, Render&& render)
{
    auto printer = formatters::make_streaming_printer(global.printer(), std::cout);
    print_document(*printer, command, render);
}

}  // namespace qps::commands
