#include "src/kernel/consumers.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace qps::kernel {

namespace fs = std::filesystem;

namespace {

// A sysfs attribute's one line, without its newline ("" when unreadable).
std::string read_line(const fs::path& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
        line.pop_back();
    return line;
}

}  // namespace

std::map<std::string, std::string> parse_fabrics_address(std::string_view text)
{
    std::map<std::string, std::string> out;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.remove_suffix(1);
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view field = text.substr(0, comma);
        if (const std::size_t eq = field.find('='); eq != std::string_view::npos && eq > 0)
            out[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    return out;
}

std::vector<NvmeController> list_nvme_controllers(const std::string& root)
{
    std::vector<NvmeController> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        // nvmeN only: nvme-subsys*, nvme-fabrics are other classes' names.
        if (name.size() <= 4 || name.compare(0, 4, "nvme") != 0 ||
            !std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        NvmeController c;
        c.name = name;
        c.transport = read_line(entry.path() / "transport");
        c.state = read_line(entry.path() / "state");
        c.subsysnqn = read_line(entry.path() / "subsysnqn");
        c.address = read_line(entry.path() / "address");
        c.address_fields = parse_fabrics_address(c.address);
        c.reconnect_delay = read_line(entry.path() / "reconnect_delay");
        c.ctrl_loss_tmo = read_line(entry.path() / "ctrl_loss_tmo");
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const NvmeController& a, const NvmeController& b) {
        return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
    });
    return out;
}

}  // namespace qps::kernel
