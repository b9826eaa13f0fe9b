#include "commands/spellings.hpp"

#include <array>
#include <utility>

namespace qps::commands {

namespace {

// Every Given, and the options that give it: the same one in every command
// that takes it (-s and -c as the users type them), but where a command
// keeps another name for the thing: perftest's (bw's --tx-depth and
// --rx-depth are the queue depths qp create calls --send-wr and
// --recv-wr), or ports' --watch SECONDS, which is watch's --interval and
// turns the watch on.
struct Spelling {
    Given given;
    std::string_view option, other_name;
};
constexpr std::array<Spelling, given_count> spellings{{
    {Given::ib_port, "--ib-port", {}},
    {Given::gid_index, "--gid-index", {}},
    {Given::mtu, "--mtu", {}},
    {Given::send_wr, "--send-wr", "--tx-depth"},
    {Given::recv_wr, "--recv-wr", "--rx-depth"},
    {Given::send_sge, "--send-sge", {}},
    {Given::recv_sge, "--recv-sge", {}},
    {Given::cq_depth, "--cq-depth", {}},
    {Given::max_inline, "--max-inline", {}},
    {Given::op, "--op", {}},
    {Given::transport, "--transport", {}},
    {Given::size, "-s", {}},
    {Given::threads, "--threads", {}},
    {Given::cpus, "--cpus", {}},
    {Given::cpu, "-c", {}},
    {Given::device, "-d", {}},
    {Given::bind, "--bind", {}},
    {Given::cm, "--cm", {}},
    {Given::post_list, "--post-list", {}},
    {Given::cq_mod, "--cq-mod", {}},
    {Given::qps, "--qps", {}},
    {Given::window, "--window", {}},
    {Given::interval, "--interval", "--watch"},
    {Given::listen, "--prometheus", {}},
    {Given::raddr, "--raddr", {}},
    {Given::rkey, "--rkey", {}},
    {Given::cm_port, "--cm-port", {}},
    {Given::pkey_index, "--pkey-index", {}},
    {Given::qkey, "--qkey", {}},
    {Given::max_rd_atomic, "--max-rd-atomic", {}},
    {Given::max_dest_rd_atomic, "--max-dest-rd-atomic", {}},
    {Given::dgid, "--dgid", {}},
    {Given::srq, "--srq", {}},
    {Given::max_wr, "--max-wr", {}},
    {Given::max_sge, "--max-sge", {}},
    {Given::srq_limit, "--limit", {}},
    {Given::count, "--count", {}},
    {Given::xrcd, "--xrcd", {}},
}};

constexpr bool in_order()
{
    for (std::size_t i = 0; i < spellings.size(); ++i)
        if (static_cast<std::size_t>(spellings[i].given) != i)
            return false;
    return true;
}
static_assert(in_order(), "spellings lists every Given, in the enum's order");

// The deepest subcommand that was parsed: the command that ran.
const CLI::App& running(const CLI::App& app)
{
    for (const CLI::App* sub : app.get_subcommands())
        if (sub->parsed())
            return running(*sub);
    return app;
}

}  // namespace

std::string_view option_for(Given given) { return spellings[static_cast<std::size_t>(given)].option; }

std::string_view other_option_for(Given given) { return spellings[static_cast<std::size_t>(given)].other_name; }

std::string spelled(const MarkedText& e, const CLI::App& app)
{
    const CLI::App& command = running(app);
    return e.naming([&](Given g) {
        for (const std::string_view option : {option_for(g), other_option_for(g)})
            if (!option.empty() && command.get_option_no_throw(std::string(option)) != nullptr)
                return std::string(option);
        return std::string(given_words(g));
    });
}

}  // namespace qps::commands
