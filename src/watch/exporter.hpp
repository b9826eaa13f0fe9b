// `watch --prometheus ADDR:PORT`: serves the watch's metrics on
// http://ADDR:PORT/metrics through prometheus-cpp's pull exposer (its
// civetweb server, in threads of its own) for as long as it lives. Each
// scrape gets the set last published, so a scrape never waits for a look.
// The server is in the module qpscope-watch.so (src/watch/exporter_api.hpp),
// loaded by the first exporter; the address is checked here first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "src/report/metrics.hpp"

namespace qps::watch {

// Where to listen: "PORT" (on 127.0.0.1), "ADDR:PORT" with a numeric IPv4
// address or "localhost"; PORT 0 takes a free one. IPv4 only: Debian's
// civetweb (prometheus-cpp's server) is built without IPv6.
struct ListenAddress {
    std::string host;  // numeric: "127.0.0.1"
    std::uint16_t port = 0;
};
// UsageError naming `text` and what is valid.
ListenAddress parse_listen_address(std::string_view text);

class MetricsExporter {
public:
    // Listens at once. OperationError when it cannot (the port is taken, the
    // address is not this host's, a port below 1024 without the right),
    // naming the address and the reason.
    explicit MetricsExporter(const ListenAddress& where);
    ~MetricsExporter();
    MetricsExporter(const MetricsExporter&) = delete;
    MetricsExporter& operator=(const MetricsExporter&) = delete;

    // What the next scrapes get.
    void publish(report::MetricSet set);
    // "http://127.0.0.1:9100/metrics", with the port it listens on.
    std::string url() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace qps::watch
