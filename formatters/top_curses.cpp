// In the module qpscope-watch.so (formatters/top_screen_api.hpp), not in
// qpscope: ncurses's full screen for watch --top.
#include "formatters/top_screen_api.hpp"

#include <clocale>
#include <curses.h>
#include <unistd.h>

namespace qps::formatters {

namespace {

void* open(std::string& error)
{
    std::setlocale(LC_ALL, "");
    // newterm, not initscr: initscr ends the process on a terminal it cannot use.
    SCREEN* screen = ::newterm(nullptr, stdout, stdin);
    if (screen == nullptr) {
        error = "--top: curses cannot use this terminal (TERM unset or unknown?)";
        return nullptr;
    }
    ::set_term(screen);
    ::cbreak();
    ::noecho();
    ::nodelay(stdscr, TRUE);
    ::keypad(stdscr, TRUE);
    ::curs_set(0);
    return screen;
}

void close(void* screen)
{
    ::endwin();
    ::delscreen(static_cast<SCREEN*>(screen));
}

int width(void*) { return COLS; }
int height(void*) { return LINES; }

void draw(void*, const std::vector<std::string>& lines)
{
    ::werase(stdscr);
    for (std::size_t i = 0; i < lines.size() && static_cast<int>(i) < LINES; ++i) {
        if (i == 0)
            ::wattron(stdscr, A_REVERSE);
        mvwaddnstr(stdscr, static_cast<int>(i), 0, lines[i].c_str(), COLS);  // a macro in curses.h
        if (i == 0)
            ::wattroff(stdscr, A_REVERSE);
    }
    ::wrefresh(stdscr);
}

bool quit_pressed(void*)
{
    bool quit = false;
    for (int ch = ::wgetch(stdscr); ch != ERR; ch = ::wgetch(stdscr))
        quit = quit || ch == 'q' || ch == 'Q';
    return quit;
}

}  // namespace

}  // namespace qps::formatters

extern "C" const qps::formatters::TopScreenApi* qpscope_top_screen_api()
{
    static const qps::formatters::TopScreenApi api{qps::watch::watch_module_abi, qps::formatters::open, qps::formatters::close,
                                                   qps::formatters::width, qps::formatters::height,
                                                   qps::formatters::draw, qps::formatters::quit_pressed};
    return &api;
}
