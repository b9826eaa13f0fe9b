// `watch --top`'s curses half in the module qpscope-watch.so
// (formatters/top_curses.cpp), which TopScreen (formatters/top_screen.hpp)
// loads when it opens (src/util/module.hpp): no other command loads
// ncurses.
#pragma once

#include <string>
#include <vector>

#include "src/watch/module.hpp"

namespace qps::formatters {

struct TopScreenApi {
    int abi = watch::watch_module_abi;
    // curses's full screen on stdout, keys from stdin; nullptr and `error`
    // set when curses cannot use the terminal.
    void* (*open)(std::string& error);
    // The terminal as it was.
    void (*close)(void* screen);
    int (*width)(void* screen);
    int (*height)(void* screen);
    void (*draw)(void* screen, const std::vector<std::string>& lines);
    // The keys typed since the last call; true when one was q or Q.
    bool (*quit_pressed)(void* screen);
};

}  // namespace qps::formatters

// The module's entry point for the screen: dlsym finds it by this name.
extern "C" const qps::formatters::TopScreenApi* qpscope_top_screen_api();
