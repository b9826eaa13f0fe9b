// In the module qpscope-watch.so (src/watch/exporter_api.hpp), not in
// qpscope: prometheus-cpp's pull exposer serving the set last published.
#include "src/watch/exporter_api.hpp"

#include <exception>
#include <memory>
#include <mutex>
#include <vector>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

namespace qps::watch {

namespace {

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

// What a scrape reads: the set last published, under a lock (the exposer's
// threads call Collect).
class PublishedMetrics : public prometheus::Collectable {
public:
    void set(const report::MetricSet& s)
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

struct Server {
    std::shared_ptr<PublishedMetrics> published = std::make_shared<PublishedMetrics>();
    std::unique_ptr<prometheus::Exposer> exposer;
};

void* start(const std::string& bound, std::string& error)
{
    try {
        auto server = std::make_unique<Server>();
        server->exposer = std::make_unique<prometheus::Exposer>(bound, 2);
        server->exposer->RegisterCollectable(server->published);
        return server.release();
    } catch (const std::exception& e) {
        error = e.what();
        return nullptr;
    }
}

void publish(void* server, const report::MetricSet& set) { static_cast<Server*>(server)->published->set(set); }

void stop(void* server) { delete static_cast<Server*>(server); }

constexpr ExporterApi api{watch_module_abi, start, publish, stop};

}  // namespace

}  // namespace qps::watch

extern "C" const qps::watch::ExporterApi* qpscope_exporter_api() { return &qps::watch::api; }
