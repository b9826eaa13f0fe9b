#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <regex>
#include <sstream>

#include "formatters/prometheus.hpp"
#include "unit/formatters/sample_ports_report.hpp"

using namespace qps;
using namespace qps::formatters;

namespace {

std::string render(const report::PortsReport& r)
{
    std::ostringstream out;
    render_ports_prometheus(r, out);
    return out.str();
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

bool has_line(const std::string& text, const std::string& line)
{
    const auto lines = lines_of(text);
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("prometheus: name parts are lower-case [a-z0-9_]")
{
    CHECK(report::metric_name_part("port_rcv_data") == "port_rcv_data");
    CHECK(report::metric_name_part("rx-Pkts.1") == "rx_pkts_1");
    CHECK(report::metric_name_part("RxWriteRequests") == "rxwriterequests");
    CHECK(report::metric_name_part("a b/c:d") == "a_b_c_d");  // ':' is for recording rules
    CHECK(report::metric_name_part("\xc3\xa9t\xc3\xa9") == "__t__");
}

TEST_CASE("prometheus: label values and HELP text are escaped")
{
    CHECK(prometheus_label_value("plain 1.2-3") == "plain 1.2-3");
    CHECK(prometheus_label_value("a\"b") == "a\\\"b");
    CHECK(prometheus_label_value("a\\b") == "a\\\\b");
    CHECK(prometheus_label_value("a\nb") == "a\\nb");
    CHECK(prometheus_help_text("say \"x\" a\\b\nc") == "say \"x\" a\\\\b\\nc");  // quotes stay in HELP
    // The exposition format is UTF-8: bytes that are not become U+FFFD.
    CHECK(prometheus_label_value("rxe\xff" "0") == "rxe\xef\xbf\xbd" "0");
    CHECK(prometheus_help_text("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("prometheus: the sample report, line by line")
{
    const std::string text = render(test::sample_ports_report());
    INFO(text);
    // Identity, with the awkward firmware string escaped.
    CHECK(has_line(text, "# TYPE qpscope_device_info gauge"));
    CHECK(has_line(text, "qpscope_device_info{device=\"mlx5_0\",uverbs=\"uverbs0\",node_type=\"CA\","
                         "transport=\"InfiniBand\",fw_ver=\"20.31.1014 \\\"beta\\\" \\\\ build\\nline2\","
                         "node_guid=\"0c42:a103:0065:a1b2\",sys_image_guid=\"0c42:a103:0065:a1b2\"} 1"));
    // Gauges: state with its codes in HELP, rates in bytes/s, MTU in bytes.
    CHECK(has_line(text, "# HELP qpscope_port_state Port state (ibv_port_state): 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, "
                         "4 ACTIVE, 5 ACTIVE_DEFER"));
    CHECK(has_line(text, "# TYPE qpscope_port_state gauge"));
    CHECK(has_line(text, "qpscope_port_state{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 4"));
    CHECK(has_line(text, "qpscope_port_state{device=\"mlx5_0\",port=\"2\",link_layer=\"InfiniBand\"} 1"));
    CHECK(has_line(text, "qpscope_port_state{device=\"rxe0\",port=\"1\",link_layer=\"Ethernet\"} 4"));
    CHECK(has_line(text, "qpscope_port_physical_state{device=\"mlx5_0\",port=\"2\",link_layer=\"InfiniBand\"} 3"));
    CHECK(has_line(text, "qpscope_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\","
                         "link_layer=\"InfiniBand\"} 12500000000"));
    CHECK(has_line(text, "qpscope_port_data_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\","
                         "link_layer=\"InfiniBand\"} 12109375000"));
    CHECK(has_line(text, "qpscope_port_active_mtu_bytes{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 4096"));
    CHECK(has_line(text, "qpscope_port_max_mtu_bytes{device=\"rxe0\",port=\"1\",link_layer=\"Ethernet\"} 4096"));
    // No rate and an unknown MTU code: no sample rather than a made-up value.
    CHECK(text.find("qpscope_port_rate_bytes_per_second{device=\"rxe0\"") == std::string::npos);
    CHECK(text.find("qpscope_port_active_mtu_bytes{device=\"rxe0\"") == std::string::npos);
    // Counters: TYPE counter, _total once, full 64-bit values, unit notes in HELP.
    CHECK(has_line(text, "# TYPE qpscope_port_bad_pkey_total counter"));
    CHECK(has_line(text, "# HELP qpscope_counters_port_rcv_data_total Port counter counters/port_rcv_data in sysfs "
                         "(in units of 4 bytes)"));
    CHECK(has_line(text, "# TYPE qpscope_counters_port_rcv_data_total counter"));
    CHECK(has_line(text, "qpscope_counters_port_rcv_data_total{device=\"mlx5_0\",port=\"1\","
                         "link_layer=\"InfiniBand\"} 18446744073709551615"));
    CHECK(has_line(text, "# TYPE qpscope_hw_counters_sent_pkts_total counter"));
    CHECK(has_line(text, "qpscope_hw_counters_sent_pkts_total{device=\"rxe0\",port=\"1\",link_layer=\"Ethernet\"} 10"));
    CHECK(has_line(text, "qpscope_hw_counters_total{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 9"));
    CHECK(text.find("_total_total") == std::string::npos);
    // "rx-Pkts.1" and "rx_pkts_1" clash once sanitized: the first is kept;
    // the second and the unreadable counter are counted as not exported.
    CHECK(has_line(text, "qpscope_hw_counters_rx_pkts_1_total{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 3"));
    CHECK(has_line(text, "qpscope_port_counters_not_exported{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\","
                         "set=\"hw_counters\"} 2"));
    CHECK(has_line(text, "qpscope_port_counters_not_exported{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\","
                         "set=\"counters\"} 0"));
    CHECK(text.find("req_cqe_error") == std::string::npos);
}

TEST_CASE("prometheus: every family has one HELP and one TYPE, then all its samples; names are valid")
{
    const std::string text = render(test::sample_ports_report());
    INFO(text);
    const std::regex help(R"(# HELP (qpscope_[a-z0-9_]+) .+)");
    const std::regex type(R"(# TYPE (qpscope_[a-z0-9_]+) (gauge|counter))");
    const std::regex sample(R"((qpscope_[a-z0-9_]+)\{([a-z_]+="([^"\\]|\\.)*",?)+\} [0-9.e+]+)");
    std::map<std::string, std::string> types;
    std::string current;
    std::smatch m;
    const auto lines = lines_of(text);
    REQUIRE(lines.size() > 20);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (std::regex_match(l, m, help)) {
            CHECK_MESSAGE(types.count(m[1]) == 0, "second HELP for ", m[1].str());
            REQUIRE(i + 1 < lines.size());
            std::smatch t;
            REQUIRE_MESSAGE(std::regex_match(lines[i + 1], t, type), "no TYPE after ", l);
            CHECK(t[1] == m[1]);
            types[m[1]] = t[2];
            current = m[1];
            ++i;
            continue;
        }
        REQUIRE_MESSAGE(std::regex_match(l, m, sample), "not a sample line: ", l);
        CHECK_MESSAGE(m[1] == current, l, " is not under its family's HELP");
    }
    for (const auto& [name, t] : types)
        CHECK_MESSAGE((t == "counter") == name.ends_with("_total"), name, " is a ", t);
    CHECK(text.back() == '\n');
}

TEST_CASE("prometheus: no devices, no metrics")
{
    CHECK(render(report::PortsReport{}).empty());
}
