// The interrupt pipe's own waits: sleep_unless_interrupted and
// InterruptSetAside (the rest of its use is under Channel's tests).
#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <filesystem>
#include <poll.h>
#include <string>
#include <system_error>
#include <unistd.h>

#include "src/net/interrupt.hpp"

using namespace qps::net;
using namespace std::chrono_literals;

namespace {

// The pipe's write end, found as the other descriptor of the read end's pipe.
int interrupt_write_fd()
{
    namespace fs = std::filesystem;
    const int read_end = interrupt_fd();
    const fs::path mine = fs::read_symlink(fs::path("/proc/self/fd") / std::to_string(read_end));
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const fs::path target = fs::read_symlink(entry.path(), ec);
        const int fd = std::stoi(entry.path().filename().string());
        if (!ec && fd != read_end && target == mine)
            return fd;
    }
    return -1;
}

bool pipe_readable()
{
    pollfd p{interrupt_fd(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

}  // namespace

TEST_CASE("sleep_unless_interrupted: sleeps to its deadline past a stale byte, and empties the pipe")
{
    clear_interrupt();
    const int w = interrupt_write_fd();
    REQUIRE(w >= 0);
    const char byte = 1;
    REQUIRE(::write(w, &byte, 1) == 1);  // a byte without a pending interrupt: what a racing clear leaves
    REQUIRE(pipe_readable());
    const auto start = std::chrono::steady_clock::now();
    CHECK(sleep_unless_interrupted(start + 200ms));
    CHECK(std::chrono::steady_clock::now() - start >= 200ms);
    CHECK_FALSE(pipe_readable());  // drained: later waits do not wake on it
}

TEST_CASE("sleep_unless_interrupted: false at once when an interrupt is pending")
{
    clear_interrupt();
    request_interrupt();
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(sleep_unless_interrupted(start + 60s));
    CHECK(std::chrono::steady_clock::now() - start < 30s);  // a hang bound, not a speed target
    CHECK(interrupt_pending());  // still pending for the caller
    clear_interrupt();
}

TEST_CASE("InterruptSetAside: waits in its scope do not end at a pending interrupt; it is pending again after")
{
    clear_interrupt();
    request_interrupt(SIGTERM);
    {
        const InterruptSetAside aside;
        CHECK_FALSE(interrupt_pending());
        const auto start = std::chrono::steady_clock::now();
        CHECK(sleep_unless_interrupted(start + 100ms));
        CHECK(interrupt_reason().empty());
    }
    CHECK(interrupt_pending());
    CHECK(interrupt_reason() == "interrupted by SIGTERM");
    clear_interrupt();
    {
        const InterruptSetAside none;  // nothing pending: nothing to restore
    }
    CHECK_FALSE(interrupt_pending());
}
