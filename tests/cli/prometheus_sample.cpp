// Test helper: prints the constructed sample report (see
// tests/unit/formatters/sample_ports_report.hpp) in the Prometheus format,
// for tests/cli/run-all to check with promtool.
#include <iostream>

#include "formatters/prometheus.hpp"
#include "unit/formatters/sample_ports_report.hpp"

int main()
{
    qps::formatters::render_ports_prometheus(qps::test::sample_ports_report(), std::cout);
    return 0;
}
