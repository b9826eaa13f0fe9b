#include "commands/option_values.hpp"

#include <filesystem>

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/util/suggest.hpp"

namespace qps::commands {

namespace {

bool same_ignoring_case(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::string braced(const std::vector<std::string>& words) { return fmt::format("{{{}}}", fmt::join(words, ",")); }

}  // namespace

std::string absolute_path(const std::string& path)
{
    if (path.empty())
        return path;
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

CLI::Validator one_of(std::vector<std::string> words)
{
    const std::string description = braced(words);
    CLI::Validator v(
        [words = std::move(words)](std::string& value) -> std::string {
            for (const auto& w : words)
                if (same_ignoring_case(value, w)) {
                    value = w;
                    return {};
                }
            std::string lowered = value;
            std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            std::string did = util::did_you_mean(lowered, words);
            return fmt::format("'{}' is not one of {}{}", value, fmt::join(words, ", "),
                               did.empty() ? "" : ";" + did);
        },
        description, std::string(one_of_name));
    return v;
}

CLI::Validator suggest_words(std::vector<std::string> words)
{
    return CLI::Validator([](std::string&) { return std::string{}; }, braced(words), std::string(suggest_name));
}

CLI::Validator comma_list_of(std::vector<std::string> words)
{
    return CLI::Validator([](std::string&) { return std::string{}; }, braced(words), std::string(comma_list_name));
}

CLI::Option* add_device_option(CLI::App* cmd, std::string& device, DeviceUse use)
{
    struct Use {
        DeviceUse use;
        const char* help;
    };
    static constexpr std::array<Use, 4> uses{{
        {DeviceUse::choose, "Device (default: the first)"},
        {DeviceUse::filter, "Only this device (e.g. mlx5_0, rxe0)"},
        {DeviceUse::qpn_owner, "Device, when QPNs repeat across devices"},
        {DeviceUse::mesh_rank, "Device of each rank (default: the first, or with --per-device the node-local rank's)"},
    }};
    const char* help = "Device";
    for (const Use& u : uses)
        if (u.use == use)
            help = u.help;
    return cmd->add_option("-d,--device", device, help)->type_name(value_type::device);
}

}  // namespace qps::commands
