#include "src/kernel/sysfs.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string_view>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace qps::kernel {

namespace fs = std::filesystem;

namespace {

// Reads up to 4 KiB; returns 0 or the errno of open/read (sysfs reports
// unsupported counters as a failing read, not as a missing file).
int read_small_file(const fs::path& path, std::string& out)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf);
    int err = n < 0 ? errno : 0;
    ::close(fd);
    if (n > 0)
        out.assign(buf, static_cast<std::size_t>(n));
    return err;
}

}  // namespace

std::optional<std::uint64_t> parse_counter(const std::string& text)
{
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string::npos)
        return std::nullopt;
    std::uint64_t v = 0;
    const char* first = text.data();
    const char* last = text.data() + end + 1;
    auto [p, ec] = std::from_chars(first, last, v);
    if (ec != std::errc{} || p != last)
        return std::nullopt;
    return v;
}

CounterSet read_port_counters(const std::string& device, std::uint32_t port, const std::string& subdir,
                              const std::string& root)
{
    CounterSet set;
    const fs::path dir = fs::path(root) / device / "ports" / std::to_string(port) / subdir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return set;
    set.present = true;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec))
            continue;
        Counter c;
        c.name = entry.path().filename().string();
        if (c.name == "lifespan")  // a setting of hw_counters, not a counter
            continue;
        std::string text;
        if (int err = read_small_file(entry.path(), text); err != 0)
            c.error = std::strerror(err);
        else if (auto v = parse_counter(text))
            c.value = v;
        else
            c.error = "not a number: '" + text.substr(0, 32) + "'";
        set.counters.push_back(std::move(c));
    }
    std::sort(set.counters.begin(), set.counters.end(),
              [](const Counter& a, const Counter& b) { return a.name < b.name; });
    return set;
}


std::optional<std::vector<int>> parse_cpu_list(const std::string& text)
{
    std::vector<int> out;
    std::size_t i = 0;
    const auto number = [&](int& v) {
        const char* b = text.data() + i;
        const auto [p, ec] = std::from_chars(b, text.data() + text.size(), v);
        if (ec != std::errc() || v < 0 || v > 65535)
            return false;
        i += static_cast<std::size_t>(p - b);
        return true;
    };
    std::string_view rest(text);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' '))
        rest.remove_suffix(1);
    if (rest.empty())
        return out;
    const std::size_t n = rest.size();
    while (i < n) {
        int a = 0, b = 0;
        if (!number(a))
            return std::nullopt;
        b = a;
        if (i < n && text[i] == '-') {
            ++i;
            if (!number(b) || b < a)
                return std::nullopt;
        }
        for (int c = a; c <= b; ++c)
            out.push_back(c);
        if (i < n) {
            if (text[i] != ',' || i + 1 == n)
                return std::nullopt;
            ++i;
        }
    }
    return out;
}

std::optional<std::uint64_t> read_port_counter(const std::string& device, std::uint32_t port,
                                               const std::string& subdir, const std::string& name,
                                               const std::string& root)
{
    std::string text;
    if (read_small_file(fmt::format("{}/{}/ports/{}/{}/{}", root, device, port, subdir, name), text) != 0)
        return std::nullopt;
    return parse_counter(text);
}

std::vector<int> device_local_cpus(const std::string& device, const std::string& root)
{
    std::string text;
    if (read_small_file(root + "/" + device + "/device/local_cpulist", text) != 0)
        return {};
    return parse_cpu_list(text).value_or(std::vector<int>{});
}

namespace {

std::optional<std::uint64_t> value_of(const CounterSet& set, std::string_view name)
{
    for (const auto& c : set.counters)
        if (c.name == name)
            return c.value;
    return std::nullopt;
}

std::optional<std::uint64_t> rise(const std::optional<std::uint64_t>& before, const std::optional<std::uint64_t>& after)
{
    if (before && after && *after >= *before)
        return *after - *before;
    return std::nullopt;
}

}  // namespace

PacketCounts packet_counts(const CounterSet& hw_counters, const CounterSet& counters)
{
    PacketCounts p{value_of(hw_counters, "sent_pkts"), value_of(hw_counters, "rcvd_pkts")};
    if (!p.sent)
        p.sent = value_of(counters, "port_xmit_packets");
    if (!p.received)
        p.received = value_of(counters, "port_rcv_packets");
    return p;
}

PacketCounts read_packet_counts(const std::string& device, std::uint32_t port, const std::string& root)
{
    return packet_counts(read_port_counters(device, port, "hw_counters", root),
                         read_port_counters(device, port, "counters", root));
}

PacketCounts packets_since(const PacketCounts& before, const PacketCounts& after)
{
    return {rise(before.sent, after.sent), rise(before.received, after.received)};
}

LinkState read_link_state(const std::string& device, std::uint32_t port, const std::string& root,
                          const std::string& net_root)
{
    LinkState s;
    s.link_downed = value_of(read_port_counters(device, port, "hw_counters", root), "link_downed");
    if (!s.link_downed)
        s.link_downed = value_of(read_port_counters(device, port, "counters", root), "link_downed");
    std::string text;
    if (read_small_file(fmt::format("{}/{}/ports/{}/gid_attrs/ndevs/0", root, device, port), text) != 0)
        return s;
    const std::string netdev = text.substr(0, text.find('\n'));
    if (netdev.empty() || netdev.find('/') != std::string::npos)
        return s;
    s.netdev = netdev;
    if (read_small_file(net_root + "/" + s.netdev + "/carrier_changes", text) == 0)
        s.carrier_changes = parse_counter(text);
    return s;
}

}  // namespace qps::kernel
