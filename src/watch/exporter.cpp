#include "src/watch/exporter.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fmt/format.h>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include "src/error.hpp"

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

prometheus::MetricFamily to_prometheus(const report::MetricFamily& f)
{
    prometheus::MetricFamily out;
    out.name = f.name;
    out.help = f.help;
    out.type = f.type == report::MetricType::counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
    out.metric.reserve(f.samples.size());
    for (const auto& s : f.samples) {
        prometheus::ClientMetric m;
        for (const auto& l : s.labels)
            m.label.push_back({l.name, l.value});
        (f.type == report::MetricType::counter ? m.counter.value : m.gauge.value) = s.number;
        out.metric.push_back(std::move(m));
    }
    return out;
}

}  // namespace

// What a scrape reads: the set last published, under a lock (the exposer's
// threads call Collect).
class PublishedMetrics : public prometheus::Collectable {
public:
    void set(report::MetricSet s)
    {
        std::vector<prometheus::MetricFamily> families;
        families.reserve(s.families().size());
        for (const auto& f : s.families())
            families.push_back(to_prometheus(f));
        const std::lock_guard lock(mutex_);
        families_.swap(families);
    }
    std::vector<prometheus::MetricFamily> Collect() const override
    {
        const std::lock_guard lock(mutex_);
        return families_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<prometheus::MetricFamily> families_;
};


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
    std::shared_ptr<PublishedMetrics> published = std::make_shared<PublishedMetrics>();
    std::unique_ptr<prometheus::Exposer> exposer;
    std::string url;
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
    try {
        impl_->exposer = std::make_unique<prometheus::Exposer>(bound, 2);
    } catch (const std::exception& e) {
        throw OperationError(fmt::format("cannot serve metrics on {}: {}", bound, e.what()));
    }
    impl_->exposer->RegisterCollectable(impl_->published);
    impl_->url = fmt::format("http://{}/metrics", bound);
}

MetricsExporter::~MetricsExporter() = default;

void MetricsExporter::publish(report::MetricSet set) { impl_->published->set(std::move(set)); }

std::string MetricsExporter::url() const { return impl_->url; }

}  // namespace qps::watch
