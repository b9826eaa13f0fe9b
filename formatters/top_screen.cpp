#include "formatters/top_screen.hpp"

#include <unistd.h>
#include <fmt/format.h>

#include "formatters/top_screen_api.hpp"
#include "src/error.hpp"
#include "src/util/module.hpp"

namespace qps::formatters {

TopScreen::TopScreen()
{
    if (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0)
        throw OperationError("--top draws on a terminal: run it with stdin and stdout on one (or leave --top out "
                             "for lines, --json for JSON Lines)");
    using Entry = const TopScreenApi* (*)();
    const auto entry =
        reinterpret_cast<Entry>(util::module_symbol(watch::watch_module_file, "qpscope_top_screen_api", "watch --top"));
    api_ = entry();
    if (api_->abi != watch::watch_module_abi)
        throw OperationError(fmt::format("watch --top: {} is of another qpscope (interface {}, this one {})",
                                         watch::watch_module_file, api_->abi, watch::watch_module_abi));
    std::string error;
    screen_ = api_->open(error);
    if (screen_ == nullptr)
        throw OperationError(error);
}

TopScreen::~TopScreen() { api_->close(screen_); }

int TopScreen::width() const { return api_->width(screen_); }
int TopScreen::height() const { return api_->height(screen_); }

void TopScreen::draw(const std::vector<std::string>& lines) { api_->draw(screen_, lines); }

bool TopScreen::quit_pressed() { return api_->quit_pressed(screen_); }

int TopScreen::input_fd() const { return STDIN_FILENO; }

}  // namespace qps::formatters
