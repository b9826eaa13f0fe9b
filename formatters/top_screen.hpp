// `watch --top`'s terminal: ncurses's full screen while it lives, the
// terminal as it was once it is gone (its destructor ends curses on every
// way out: q, SIGINT/SIGTERM, --count, an error). Draws the lines of
// formatters/top.hpp; reads the keyboard without waiting. curses is in the
// module qpscope-watch.so (formatters/top_screen_api.hpp), loaded as the
// screen opens.
#pragma once

#include <string>
#include <vector>

namespace qps::formatters {

class TopScreen {
public:
    // OperationError when stdin and stdout are not a terminal curses can
    // use, or when the module is not installed.
    TopScreen();
    ~TopScreen();
    TopScreen(const TopScreen&) = delete;
    TopScreen& operator=(const TopScreen&) = delete;

    int width() const;
    int height() const;
    void draw(const std::vector<std::string>& lines);
    // The keys typed since the last call; true when one was q or Q.
    bool quit_pressed();
    // The file descriptor the keys come from (to wait on with poll).
    int input_fd() const;

private:
    const struct TopScreenApi* api_ = nullptr;  // the module's (formatters/top_screen_api.hpp)
    void* screen_ = nullptr;                    // curses's SCREEN, in the module
};

}  // namespace qps::formatters
