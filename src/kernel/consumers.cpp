#include "src/kernel/consumers.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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

namespace {

// The mount table's escapes: a backslash and three octal digits (\040 is a space, \134 a backslash).
std::string unescape_mount_field(std::string_view f)
{
    std::string out;
    for (std::size_t i = 0; i < f.size(); ++i) {
        const bool octal = f[i] == '\\' && i + 3 < f.size() &&
                           std::all_of(f.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                       f.begin() + static_cast<std::ptrdiff_t>(i) + 4,
                                       [](char c) { return c >= '0' && c <= '7'; });
        if (octal) {
            out += static_cast<char>((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 + (f[i + 3] - '0'));
            i += 3;
        } else {
            out += f[i];
        }
    }
    return out;
}

}  // namespace

std::vector<NfsMount> parse_nfs_rdma_mounts(std::string_view table)
{
    std::vector<NfsMount> out;
    while (!table.empty()) {
        const std::size_t nl = table.find('\n');
        std::string_view line = table.substr(0, nl);
        table.remove_prefix(nl == std::string_view::npos ? table.size() : nl + 1);
        std::vector<std::string_view> fields;
        while (!line.empty()) {
            const std::size_t sp = line.find(' ');
            if (sp != 0)
                fields.push_back(line.substr(0, sp));
            line.remove_prefix(sp == std::string_view::npos ? line.size() : sp + 1);
        }
        if (fields.size() < 4 || fields[2].substr(0, 3) != "nfs")
            continue;
        const auto options = parse_fabrics_address(fields[3]);
        const auto proto = options.find("proto");
        if (proto == options.end() || (proto->second != "rdma" && proto->second != "rdma6"))
            continue;
        NfsMount m;
        m.source = unescape_mount_field(fields[0]);
        m.mountpoint = unescape_mount_field(fields[1]);
        m.fstype = std::string(fields[2]);
        if (const auto a = options.find("addr"); a != options.end())
            m.addr = a->second;
        m.port = "20049";  // NFS over RDMA's port, when the options do not name one
        if (const auto p = options.find("port"); p != options.end() && p->second != "0")
            m.port = p->second;
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<NfsMount> list_nfs_rdma_mounts(const std::string& path)
{
    std::ifstream in(path);
    const std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_nfs_rdma_mounts(table);
}

std::vector<IscsiConnection> list_iscsi_connections(const std::string& root)
{
    std::vector<IscsiConnection> out;
    std::error_code ec;
    const fs::path base(root);
    for (const auto& entry : fs::directory_iterator(base / "iscsi_connection", ec)) {
        const std::string name = entry.path().filename().string();  // connectionS:C
        if (name.compare(0, 10, "connection") != 0)
            continue;
        IscsiConnection c;
        c.name = name;
        c.session = "session" + name.substr(10, name.find(':') == std::string::npos ? std::string::npos
                                                                                   : name.find(':') - 10);
        c.address = read_line(entry.path() / "persistent_address");
        c.port = read_line(entry.path() / "persistent_port");
        if (c.address.empty()) {
            c.address = read_line(entry.path() / "address");
            c.port = read_line(entry.path() / "port");
        }
        c.targetname = read_line(base / "iscsi_session" / c.session / "targetname");
        c.state = read_line(base / "iscsi_session" / c.session / "state");
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(),
              [](const IscsiConnection& a, const IscsiConnection& b) { return a.name < b.name; });
    return out;
}

}  // namespace qps::kernel
