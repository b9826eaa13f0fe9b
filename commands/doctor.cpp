// `qpscope doctor`: what is wrong with this host, and what to do about it.
#include <iostream>
#include <memory>
#include <unistd.h>

#include "commands/app.hpp"
#include "commands/link_flags.hpp"
#include "commands/option_values.hpp"
#include "commands/emit.hpp"
#include "formatters/doctor.hpp"
#include "src/error.hpp"
#include "src/ops/doctor.hpp"
#include "src/util/outside_bytes.hpp"

namespace qps::commands {

namespace {

struct DoctorFlags {
    std::string device;
    std::uint32_t port = 0;
    std::string expect;
    double interval = 1.0;
    bool no_loopback = false;
    bool loopback_bw = false;
    bool strict = false;
    bool cm = false;
    KnobFlags knobs;
};

}  // namespace

void register_doctor(CLI::App& app, const GlobalOptions& global)
{
    auto f = std::make_shared<DoctorFlags>();
    CLI::App* cmd = app.add_subcommand(
        "doctor",
        "Check this host as an RDMA engineer would: kernel modules and devices, device access, locked memory, every "
        "port (state, link against --expect, GIDs, RoCE address and MTU), error counters over --interval, stuck QPs "
        "of every process, a loopback self-test per ACTIVE port (by hand or with --cm through rdma_cm, its QPs set with the "
        "QP options). Says what was seen, why it matters and the fix. "
        "Exit 0 healthy, 1 something failed (or warned, with --strict), 2 bad usage");
    add_device_option(cmd, f->device, DeviceUse::filter);
    auto* port = cmd->add_option("-i,--ib-port", f->port, "Only this port number (1-based)")
                     ->check(CLI::Range(1u, 255u))
                     ->type_name(value_type::port);
    add_old_spelling(cmd, "-p,--port", f->port, port)->check(CLI::Range(1u, 255u));
    cmd->add_option("--expect", f->expect,
                    "What every checked port must reach, comma list of KEY=VALUE: rate=GBPS (nominal, as ibstat), "
                    "mtu=BYTES, width=4X, speed=NDR, loopback_gbps=GBPS (with --loopback-bw); e.g. "
                    "rate=400,mtu=4096,width=4X")
        ->type_name("LIST");
    cmd->add_option("--interval", f->interval,
                    "Seconds between the two readings of the error counters and QP PSNs (default 1)")
        ->check(CLI::Range(0.1, 3600.0))
        ->type_name("SECONDS");
    cmd->add_flag("--no-loopback", f->no_loopback, "Skip the loopback self-test (it creates two QPs per port)");
    cmd->add_flag("--loopback-bw", f->loopback_bw,
                  "Also run a 1 s RDMA write bandwidth test in the loopback, against --expect loopback_gbps=");
    cmd->add_flag("--cm", f->cm,
                  "The loopback's QPs connect through rdma_cm (a listener on the port's address, a client to it), "
                  "the way NVMe-oF, iSER and MPI's rdmacm do; on iWARP the only way its loopback runs");
    add_knob_options(cmd, f->knobs);
    cmd->add_flag("--strict", f->strict, "Warnings fail too (exit 1)");
    cmd->callback([f, cmd, &global] {
        ops::DoctorOptions o;
        o.device = f->device;
        if (f->port != 0)
            o.port = f->port;
        o.expect = health::parse_expect(f->expect);
        if (o.expect.loopback_gbps && !f->loopback_bw)
            throw UsageError("--expect loopback_gbps= needs --loopback-bw");
        if (f->no_loopback && f->loopback_bw)
            throw UsageError("--loopback-bw and --no-loopback exclude each other");
        o.loopback_cm = f->cm;
        if (f->cm)
            check_beside_cm(BesideCm(f->knobs));
        o.knobs = to_knobs(f->knobs, IBV_QPT_RC, "rc");
        if (f->no_loopback && (f->cm || !knob_names_given(cmd).empty()))
            throw UsageError("--cm and the QP options (--tclass, --sl, ...) set the loopback's QPs: they and "
                             "--no-loopback exclude each other");
        o.interval_s = f->interval;
        o.loopback = !f->no_loopback;
        o.loopback_bw = f->loopback_bw;
        const bool show_progress = ::isatty(STDERR_FILENO) && !global.json;
        o.progress = [&](const std::string& what) {
            if (show_progress)
                global.info("doctor: " + what);  // none under --quiet
        };
        const ops::DoctorReport report = ops::run_doctor(o);
        if (global.quiet && !global.json) {
            for (const auto& line : formatters::doctor_failure_lines(report, f->strict))
                std::cout << util::escape_text(line) << '\n';
        } else {
            emit(global, "doctor", [&](formatters::Printer& p) { formatters::render_doctor(report, f->strict, p); });
        }
        if (report.interrupted)
            throw ReportedFailure{exit_interrupted};
        if (const int rc = ops::doctor_exit_code(report, f->strict); rc != 0)
            throw ReportedFailure{rc};
    });
}

}  // namespace qps::commands
