// `qpscope qp xrcd open FILE`: an XRC domain on a file, held by this
// user's holder, so that xrc-recv QPs and XRC SRQs can live in it (`qp
// create --transport xrc-recv --xrcd FILE`, `qp srq create --xrcd FILE`)
// and another process can open the same domain.
#include <memory>

#include "commands/option_values.hpp"
#include "commands/qp/qp.hpp"
#include "formatters/srq.hpp"
#include "src/ops/srq_session.hpp"

namespace qps::commands {

namespace {
struct XrcdOpenOptions {
    std::string path;
    std::string device;
    unsigned idle = 600;
};
}  // namespace

void register_qp_xrcd(CLI::App& parent, const GlobalOptions& global)
{
    CLI::App* xrcd = parent.add_subcommand("xrcd", "XRC domains in the holder (ibv_open_xrcd on a file, shared by "
                                                   "every process that opens it); needs a device with XRC");
    xrcd->require_subcommand(1);
    auto o = std::make_shared<XrcdOpenOptions>();
    CLI::App* cmd = xrcd->add_subcommand("open", "Open (creating the file when missing) the XRC domain on FILE and "
                                                 "hold it until everything held is destroyed (qp destroy, all of "
                                                 "it); refused by name on a device without XRC (rxe, siw)");
    cmd->add_option("file", o->path, "The domain's file: every process that opens it on the device shares the "
                                     "domain")
        ->required()
        ->type_name("FILE");
    add_device_option(cmd, o->device, DeviceUse::choose);
    cmd->add_option("--idle-timeout", o->idle, "Seconds a new holder waits without requests before it exits "
                                               "and releases everything")
        ->check(CLI::Range(1u, 7u * 24 * 3600));
    cmd->callback([o, &global] {
        const ops::XrcdOutcome x = ops::open_xrcd(o->device, absolute_path(o->path), std::chrono::seconds(o->idle));
        emit(global, "qp xrcd open", [&](formatters::Printer& p) { formatters::render_xrcd(x, p); });
    });
}

}  // namespace qps::commands
