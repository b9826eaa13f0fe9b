// SIGINT / SIGTERM end every wait of the out-of-band exchange at once.
//
// A self-pipe: the signal handler (or request_interrupt) writes one byte;
// every Channel and Listener wait polls the read end next to its socket and
// throws Interrupted when it becomes readable. The byte stays in the pipe,
// so every later wait ends too, until clear_interrupt().
#pragma once

#include <chrono>
#include <string>

#include "src/error.hpp"

namespace qps::net {

// A wait ended by SIGINT/SIGTERM (or request_interrupt).
struct Interrupted : OperationError {
    Interrupted(std::string what, int signal) : OperationError(std::move(what)), signal(signal) {}
    int signal;  // 0 when requested without a signal
};

// Installs the handlers for SIGINT and SIGTERM (again on each call; a
// handler resets itself when it runs, so a second Ctrl-C kills as usual).
void install_interrupt_handlers();
// What the handler does; async-signal-safe. signal 0: a request from code.
void request_interrupt(int signal = 0) noexcept;
// Forgets a pending interrupt (tests; a server that keeps serving).
void clear_interrupt() noexcept;
bool interrupt_pending() noexcept;
// The read end of the pipe: readable while an interrupt is pending.
int interrupt_fd();
// Throws Interrupted("interrupted by SIGINT while <doing>") when pending.
void throw_if_interrupted(const std::string& doing);
// "interrupted by SIGINT" ("interrupted" when requested by code), or ""
// when nothing is pending.
std::string interrupt_reason();
// Sleeps until `until`, or less when an interrupt is or becomes pending:
// false then. For a command that samples over time and, interrupted,
// reports what it read so far.
bool sleep_unless_interrupted(std::chrono::steady_clock::time_point until);

// Sets a pending interrupt aside for a cleanup that must run whole (its
// own waits bounded): waits in this scope do not end at it; it is pending
// again when the scope ends. A second SIGINT still kills (SA_RESETHAND).
class InterruptSetAside {
public:
    InterruptSetAside() noexcept;
    ~InterruptSetAside();
    InterruptSetAside(const InterruptSetAside&) = delete;
    InterruptSetAside& operator=(const InterruptSetAside&) = delete;

private:
    int signal_;  // -1: none was pending
};

}  // namespace qps::net
