// The error kinds qpscope reports; main maps each to an exit code
// (docs/errors.md, "Errors and exit codes": 1 operation failed,
// 2 bad usage or input, 3 timeout or lost peer).
#pragma once

#include <stdexcept>
#include <string>

namespace qps {

// Bad input from the user: an unknown device, a value out of range.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The operation failed (no device, a verbs call refused).
struct OperationError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A deadline passed or the peer went away (exit code 3).
struct TimeoutError : OperationError {
    using OperationError::OperationError;
};

// A system or verbs call failed: names the call, the errno, and a hint.
// A work completion with an error status in a test's own loop (RETRY_EXC_ERR,
// ...): the run ends, and its report says why, with what was measured.
struct CompletionError : OperationError {
    CompletionError(const std::string& what, bool flushed) : OperationError(what), flushed(flushed) {}
    bool flushed;  // WR_FLUSH_ERR: the QP was in ERR already; another completion holds the cause
};

struct SystemError : OperationError {
    SystemError(std::string call, int err, std::string hint = {});
    std::string call;
    int err;
    std::string hint;
};

// The command already printed its report (e.g. a modify the kernel refused,
// with everything that was sent); main only sets the exit code.
struct ReportedFailure {
    int exit_code;
};

// errno's symbolic name, e.g. "EINVAL".
std::string errno_name(int err);

}  // namespace qps
