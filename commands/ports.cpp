// `qpscope ports`: every device and port, decoded.
#include <iostream>
#include <memory>

#include "commands/app.hpp"
#include "commands/option_values.hpp"
#include "formatters/ports.hpp"
#include "src/report/ports.hpp"
#include "src/verbs/discovery.hpp"

namespace qps::cli {

namespace {
struct PortsOptions {
    std::string device;
    std::uint32_t port = 0;  // 0: all ports
};
}  // namespace

void register_ports(CLI::App& app, const GlobalOptions& global)
{
    auto opts = std::make_shared<PortsOptions>();
    CLI::App* cmd = app.add_subcommand(
        "ports", "Show every RDMA device and port with all attributes decoded: state, width x speed, "
                 "MTU, capability flags, GID and P_Key tables, counters");
    cmd->add_option("-d,--device", opts->device, "Only this device (e.g. mlx5_0, rxe0)")
        ->type_name(value_type::device);
    cmd->add_option("-p,--port", opts->port, "Only this port number (1-based)")
        ->check(CLI::Range(1, 255))
        ->type_name(value_type::port);
    cmd->callback([opts, &global] {
        verbs::Filter filter{opts->device, {}};
        if (opts->port != 0)
            filter.port = opts->port;
        const report::PortsReport report = report::build_ports_report(verbs::snapshot_devices(filter));
        auto printer = fmt_out::make_printer(global.printer(), std::cout);
        printer->begin_document("ports");
        fmt_out::render_ports(report, *printer);
        printer->end_document();
    });
}

}  // namespace qps::cli
