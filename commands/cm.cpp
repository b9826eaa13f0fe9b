// `qpscope cm ...`: the RDMA connection manager's side of the host, each
// subcommand registered here (`cm list`).
#include <charconv>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <string>

#include "commands/app.hpp"
#include "commands/emit.hpp"
#include "commands/option_values.hpp"
#include "formatters/cm.hpp"
#include "src/decode/cm_state.hpp"
#include "src/ops/cm_list.hpp"

namespace qps::commands {

namespace {

struct CmListOptions {
    std::string device, state;
    std::optional<std::uint32_t> pid;
};

// --pid: a process ID, said in one line naming the value (CLI11's own
// message, "Could not convert", says neither what was wrong nor what fits).
CLI::Validator cm_pid_check()
{
    return CLI::Validator(
        [](std::string& value) -> std::string {
            std::uint32_t pid = 0;
            const char* end = value.data() + value.size();
            const auto [ptr, ec] = std::from_chars(value.data(), end, pid);
            if (ec == std::errc() && ptr == end && pid > 0)
                return {};
            return fmt::format("'{}' is not a process ID: give a whole number from 1 to 4294967295, as ps shows it",
                               value);
        },
        "");
}

void register_cm_list(CLI::App& parent, const GlobalOptions& global)
{
    auto o = std::make_shared<CmListOptions>();
    CLI::App* cmd = parent.add_subcommand(
        "list", "Every rdma_cm ID of the host (the kernel's view, all processes and kernel users): listeners, "
                "connections being set up, connected and closing, with their addresses, QP and owner");
    add_device_option(cmd, o->device, DeviceUse::filter);
    cmd->add_option("--state", o->state,
                    "Only IDs in this phase: listening, connecting, connected, closing, bound, idle")
        ->transform(one_of(decode::cm_phase_word_list()));
    cmd->add_option("--pid", o->pid, "Only IDs of this process")->check(cm_pid_check())->type_name("PID");
    cmd->callback([o, &global] {
        ops::CmListFilter f;
        f.device = o->device;
        f.phase = o->state;
        f.pid = o->pid;
        const report::CmListReport r = ops::list_cm_ids(f);
        emit_streamed(global, "cm list", [&](formatters::Printer& p) { formatters::render_cm_list(r, p); });
    });
}

}  // namespace

void register_cm(CLI::App& app, const GlobalOptions& global)
{
    CLI::App* cm = app.add_subcommand(
        "cm", "The RDMA connection manager (rdma_cm) of the host: its IDs, as the kernel sees them");
    cm->require_subcommand(1);
    cm->fallthrough();
    register_cm_list(*cm, global);
}

}  // namespace qps::commands
