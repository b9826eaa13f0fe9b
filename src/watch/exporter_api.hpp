// The metrics server's half in the module qpscope-watch.so
// (src/watch/exporter_server.cpp: prometheus-cpp's pull exposer and its
// civetweb), which MetricsExporter (src/watch/exporter.hpp) loads on its
// first use (src/util/module.hpp): no other command loads prometheus-cpp.
// Plain functions over the project's own types: the module and qpscope
// are built together, from one tree, with one libstdc++.
#pragma once

#include <string>

#include "src/report/metrics.hpp"
#include "src/watch/module.hpp"

namespace qps::watch {

struct ExporterApi {
    int abi = watch_module_abi;
    // Serves `bound` ("127.0.0.1:9100"), in threads of its own, until stop;
    // nullptr and `error` set (prometheus-cpp's reason) when it cannot.
    void* (*start)(const std::string& bound, std::string& error);
    // What the next scrapes get.
    void (*publish)(void* server, const report::MetricSet& set);
    void (*stop)(void* server);
};

}  // namespace qps::watch

// The module's entry point for the server: dlsym finds it by this name.
extern "C" const qps::watch::ExporterApi* qpscope_exporter_api();
