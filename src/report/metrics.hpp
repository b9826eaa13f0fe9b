// Metrics for Prometheus, as data: families (name, type, help) of labelled
// samples. `ports --format prometheus` writes a set as text
// (formatters/prometheus.hpp); `watch --prometheus` serves one through
// prometheus-cpp (src/watch/exporter.hpp). Both build the port families
// with add_ports_metrics, so the two agree on every name, label and value.
// Metric names are documented in man/qpscope-ports.1 and
// man/qpscope-watch.1.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/report/ports.hpp"

namespace qps::report {

enum class MetricType { counter, gauge };
std::string_view metric_type_name(MetricType type);  // "counter", "gauge"

struct MetricLabel {
    std::string name, value;  // value: bytes as read (escaped by whoever writes it out)
};

struct MetricSample {
    std::vector<MetricLabel> labels;
    std::string value;  // as the exposition writes it: an exact integer, "NaN", "+Inf", or a decimal
    double number = 0;  // the same value as a double (prometheus-cpp's)
};

struct MetricFamily {
    std::string name;
    MetricType type = MetricType::gauge;
    std::string help;  // plain text (escaped by whoever writes it out)
    std::vector<MetricSample> samples;
};

// Families in the order they are first added; the exposition wants every
// sample of a family together, under its one HELP and TYPE.
class MetricSet {
public:
    // False (and nothing added) when the family already has a sample with
    // these labels (two counter files whose names clash once sanitised).
    bool add(const std::string& name, MetricType type, std::string_view help, std::vector<MetricLabel> labels,
             double value);
    bool add(const std::string& name, MetricType type, std::string_view help, std::vector<MetricLabel> labels,
             std::uint64_t value);  // exact beyond 2^53 in the text

    const std::vector<MetricFamily>& families() const { return families_; }

private:
    bool add_sample(const std::string& name, MetricType type, std::string_view help, std::vector<MetricLabel> labels,
                    std::string text, double number);

    std::vector<MetricFamily> families_;
    std::map<std::string, std::size_t> index_;
    std::map<std::string, std::set<std::vector<std::pair<std::string, std::string>>>> series_;
};

// "qpscope_": every metric's prefix.
inline constexpr std::string_view metric_prefix = "qpscope_";

// A counter file name as part of a metric name: ASCII letters lower-cased,
// digits kept, anything else '_' ("rx-Pkts.1" -> "rx_pkts_1").
std::string metric_name_part(std::string_view raw);

// The families of `ports --format prometheus`: qpscope_device_info, the
// qpscope_port_* values, one family per sysfs counter file
// (qpscope_counters_<name>_total, qpscope_hw_counters_<name>_total) and
// qpscope_port_counters_not_exported.
void add_ports_metrics(MetricSet& set, const PortsReport& report);

}  // namespace qps::report
