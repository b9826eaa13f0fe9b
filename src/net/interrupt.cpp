#include "src/net/interrupt.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <algorithm>
#include <cstdint>
#include <fcntl.h>
#include <poll.h>
#include <fmt/format.h>
#include <unistd.h>

namespace qps::net {

namespace {

std::atomic<int> write_end{-1};
std::atomic<int> pending_signal{-1};  // -1: none; 0: requested by code; else the signal

struct Pipe {
    int read = -1;
    Pipe()
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
            throw SystemError("pipe2 (interrupt pipe)", errno);
        read = fds[0];
        write_end.store(fds[1]);
    }
};

const Pipe& the_pipe()
{
    static const Pipe pipe;  // lives until exit: the handler may write to it at any time
    return pipe;
}

extern "C" void on_signal(int signal) { request_interrupt(signal); }

std::string signal_name(int signal)
{
    if (signal == 0)
        return "request";
    if (const char* abbrev = ::sigabbrev_np(signal))
        return fmt::format("SIG{}", abbrev);
    return fmt::format("signal {}", signal);
}

}  // namespace

void install_interrupt_handlers()
{
    the_pipe();  // before the handler can run
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;  // a second signal does what it always does
    for (int s : {SIGINT, SIGTERM})
        if (::sigaction(s, &sa, nullptr) != 0)
            throw SystemError(fmt::format("sigaction({})", signal_name(s)), errno);
}

void request_interrupt(int signal) noexcept
{
    const int saved = errno;
    int expected = -1;
    pending_signal.compare_exchange_strong(expected, signal);
    if (const int fd = write_end.load(); fd >= 0) {
        const char byte = 1;
        [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);  // full pipe: one is pending already
    }
    errno = saved;
}

void clear_interrupt() noexcept
{
    // Flag first: a request racing with this keeps its flag, which every
    // wait checks before it polls.
    pending_signal.store(-1);
    try {
        char buf[64];
        while (::read(the_pipe().read, buf, sizeof buf) > 0) {
        }
    } catch (...) {
    }
}

bool interrupt_pending() noexcept { return pending_signal.load() >= 0; }

int interrupt_fd() { return the_pipe().read; }

std::string interrupt_reason()
{
    const int s = pending_signal.load();
    if (s < 0)
        return {};
    return s == 0 ? "interrupted" : fmt::format("interrupted by {}", signal_name(s));
}

bool sleep_unless_interrupted(std::chrono::steady_clock::time_point until)
{
    const int fd = interrupt_fd();
    for (;;) {
        if (interrupt_pending())
            return false;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return true;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 60'000))) > 0 &&
            !interrupt_pending()) {
            // A stale byte (an interrupt cleared after it was written) would
            // wake every poll until the deadline: empty the pipe.
            char buf[64];
            while (::read(fd, buf, sizeof buf) > 0) {
            }
        }  // EINTR: looked at again
    }
}

InterruptSetAside::InterruptSetAside() noexcept : signal_(pending_signal.load())
{
    if (signal_ >= 0)
        clear_interrupt();
}

InterruptSetAside::~InterruptSetAside()
{
    if (signal_ >= 0)
        request_interrupt(signal_);  // a newer one, if any, stays first
}

void throw_if_interrupted(const std::string& doing)
{
    const int s = pending_signal.load();
    if (s >= 0)
        throw Interrupted(s == 0 ? fmt::format("interrupted while {}", doing)
                                 : fmt::format("interrupted by {} while {}", signal_name(s), doing),
                          s);
}

}  // namespace qps::net
