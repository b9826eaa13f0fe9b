#include "commands/spellings.hpp"

#include <array>
#include <utility>

namespace qps::commands {

namespace {

// Every Given, and the option that gives it in every command that takes it
// (the spelling the messages show: -s and -c as the users type them).
constexpr std::array<std::pair<Given, std::string_view>, 18> spellings{{
    {Given::ib_port, "--ib-port"},
    {Given::gid_index, "--gid-index"},
    {Given::mtu, "--mtu"},
    {Given::send_wr, "--send-wr"},
    {Given::recv_wr, "--recv-wr"},
    {Given::send_sge, "--send-sge"},
    {Given::recv_sge, "--recv-sge"},
    {Given::cq_depth, "--cq-depth"},
    {Given::max_inline, "--max-inline"},
    {Given::op, "--op"},
    {Given::transport, "--transport"},
    {Given::size, "-s"},
    {Given::threads, "--threads"},
    {Given::cpus, "--cpus"},
    {Given::cpu, "-c"},
    {Given::device, "-d"},
    {Given::bind, "--bind"},
    {Given::cm, "--cm"},
}};

// The deepest subcommand that was parsed: the command that ran.
const CLI::App& running(const CLI::App& app)
{
    for (const CLI::App* sub : app.get_subcommands())
        if (sub->parsed())
            return running(*sub);
    return app;
}

}  // namespace

std::string_view option_for(Given given)
{
    for (const auto& [g, option] : spellings)
        if (g == given)
            return option;
    return {};
}

std::string spelled(const UsageError& e, const CLI::App& app)
{
    const CLI::App& command = running(app);
    return e.naming([&](Given g) {
        const std::string_view option = option_for(g);
        if (!option.empty() && command.get_option_no_throw(std::string(option)) != nullptr)
            return std::string(option);
        return std::string(given_words(g));
    });
}

}  // namespace qps::commands
