// `qpscope qp ...`: the QP lifecycle, each subcommand in its own file.
#include <algorithm>
#include <array>

#include "commands/app.hpp"
#include "commands/qp/qp.hpp"

namespace qps::commands {

namespace {

// qp's subcommands by the word that names each (the order of qp's --help).
struct QpCommand {
    std::string_view word;
    void (*add)(CLI::App&, const GlobalOptions&);
};
constexpr std::array<QpCommand, 8> qp_commands{{
    {"create", register_qp_create},
    {"modify", register_qp_modify},
    {"query", register_qp_query},
    {"list", register_qp_list},
    {"post", register_qp_post},
    {"destroy", register_qp_destroy},
    {"srq", register_qp_srq},
    {"xrcd", register_qp_xrcd},
}};

}  // namespace

void register_qp_one(CLI::App& app, const GlobalOptions& global, std::string_view sub)
{
    CLI::App* qp = app.add_subcommand(
        "qp", "Create, step through states, inspect and test queue pairs; the QPs live in a per-user holder "
              "process, so separate commands work on the same QP");
    qp->require_subcommand(1);
    qp->fallthrough();
    // A word that names none of them (help, a typo) builds them all.
    const bool known = std::ranges::any_of(qp_commands, [&](const QpCommand& c) { return c.word == sub; });
    for (const QpCommand& c : qp_commands)
        if (!known || c.word == sub)
            c.add(*qp, global);
    register_qp_holder(app);
}

void register_qp(CLI::App& app, const GlobalOptions& global) { register_qp_one(app, global, {}); }

}  // namespace qps::commands
