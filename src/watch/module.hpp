// The module qpscope-watch.so: watch --prometheus's server
// (src/watch/exporter_api.hpp) and watch --top's curses screen
// (formatters/top_screen_api.hpp), with prometheus-cpp, civetweb and
// ncurses, which no other command loads (src/util/module.hpp).
#pragma once

namespace qps::watch {

inline constexpr const char* watch_module_file = "qpscope-watch.so";
// The interface's version: changed whenever ExporterApi or TopScreenApi is,
// so a module of another build is named as such, not called.
inline constexpr int watch_module_abi = 1;

}  // namespace qps::watch
