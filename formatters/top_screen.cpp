#include "formatters/top_screen.hpp"

#include <clocale>
#include <curses.h>
#include <unistd.h>

#include "src/error.hpp"

namespace qps::formatters {

TopScreen::TopScreen()
{
    if (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0)
        throw OperationError("--top draws on a terminal: run it with stdin and stdout on one (or leave --top out "
                             "for lines, --json for JSON Lines)");
    std::setlocale(LC_ALL, "");
    // newterm, not initscr: initscr ends the process on a terminal it cannot use.
    screen_ = ::newterm(nullptr, stdout, stdin);
    if (screen_ == nullptr)
        throw OperationError("--top: curses cannot use this terminal (TERM unset or unknown?)");
    ::set_term(screen_);
    ::cbreak();
    ::noecho();
    ::nodelay(stdscr, TRUE);
    ::keypad(stdscr, TRUE);
    ::curs_set(0);
}

TopScreen::~TopScreen()
{
    ::endwin();
    ::delscreen(screen_);
}

int TopScreen::width() const { return COLS; }
int TopScreen::height() const { return LINES; }

void TopScreen::draw(const std::vector<std::string>& lines)
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

bool TopScreen::quit_pressed()
{
    bool quit = false;
    for (int ch = ::wgetch(stdscr); ch != ERR; ch = ::wgetch(stdscr))
        quit = quit || ch == 'q' || ch == 'Q';
    return quit;
}

int TopScreen::input_fd() const { return STDIN_FILENO; }

}  // namespace qps::formatters
