#include "src/watch/exporter.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/util/module.hpp"
#include "src/watch/exporter_api.hpp"

namespace qps::watch {

namespace {

constexpr std::string_view valid =
    "give PORT (on 127.0.0.1), or ADDR:PORT with a numeric IPv4 address, localhost or 0.0.0.0 (every address); "
    "PORT 0 to 65535";

std::uint16_t parse_port(std::string_view text, std::string_view whole)
{
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > 65535)
        throw UsageError(fmt::format("{} '{}': '{}' is not a port: {}", given(Given::listen), whole, text, valid));
    return static_cast<std::uint16_t>(v);
}

// The address's own socket, bound and closed again: the reason civetweb
// would not say (it throws "null context ... possible problem binding").
int try_bind(const ListenAddress& where, std::uint16_t& port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, where.host.c_str(), &a.sin_addr);
    socklen_t len = sizeof a;
    int err = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0)
        err = errno;
    else if (port == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(fd);
    return err;
}

std::string host_port(const std::string& host, std::uint16_t port) { return fmt::format("{}:{}", host, port); }

const ExporterApi& exporter_api()
{
    using Entry = const ExporterApi* (*)();
    const auto entry = reinterpret_cast<Entry>(
        util::module_symbol(watch_module_file, "qpscope_exporter_api", "watch --prometheus"));
    const ExporterApi* api = entry();
    if (api->abi != watch_module_abi)
        throw OperationError(fmt::format("watch --prometheus: {} is of another qpscope (interface {}, this one {})",
                                         watch_module_file, api->abi, watch_module_abi));
    return *api;
}

}  // namespace

ListenAddress parse_listen_address(std::string_view text)
{
    ListenAddress a;
    a.host = "127.0.0.1";
    if (text.starts_with('['))  // Debian's civetweb, under prometheus-cpp, is built without IPv6
        throw UsageError(fmt::format("{} '{}': the metrics server listens on IPv4 only: {}", given(Given::listen),
                                     text, valid));
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        a.port = parse_port(text, text);
        return a;
    }
    const std::string host(text.substr(0, colon));
    if (host != "localhost") {
        in_addr v4{};
        if (::inet_pton(AF_INET, host.c_str(), &v4) != 1)
            throw UsageError(fmt::format("{} '{}': '{}' is not a numeric IPv4 address: {}", given(Given::listen), text,
                                         host, valid));
        a.host = host;
    }
    a.port = parse_port(text.substr(colon + 1), text);
    return a;
}

struct MetricsExporter::Impl {
    const ExporterApi* api = nullptr;
    void* server = nullptr;  // the module's
    std::string url;
    ~Impl()
    {
        if (server != nullptr)
            api->stop(server);
    }
};

MetricsExporter::MetricsExporter(const ListenAddress& where) : impl_(std::make_unique<Impl>())
{
    std::uint16_t port = where.port;  // 0: the free port the kernel picks for the trial bind
    const std::string asked = host_port(where.host, where.port);
    if (const int err = try_bind(where, port); err != 0)
        throw OperationError(fmt::format("cannot serve metrics on {}: {} ({}){}", asked, std::strerror(err),
                                         errno_name(err),
                                         err == EADDRINUSE       ? ": another process listens there"
                                         : err == EADDRNOTAVAIL ? ": the address is not one of this host's"
                                         : err == EACCES         ? ": a port below 1024 needs root"
                                                                 : ""));
    const std::string bound = host_port(where.host, port);
    impl_->api = &exporter_api();
    std::string error;
    impl_->server = impl_->api->start(bound, error);
    if (impl_->server == nullptr)
        throw OperationError(fmt::format("cannot serve metrics on {}: {}", bound, error));
    impl_->url = fmt::format("http://{}/metrics", bound);
}

MetricsExporter::~MetricsExporter() = default;

void MetricsExporter::publish(report::MetricSet set) { impl_->api->publish(impl_->server, set); }

std::string MetricsExporter::url() const { return impl_->url; }

}  // namespace qps::watch
