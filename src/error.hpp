// The error kinds qpscope reports; main maps each to an exit code
// (docs/errors.md, "Errors and exit codes": 1 operation failed,
// 2 bad usage or input, 3 timeout or lost peer).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace qps {

// A value the user gave, as a UsageError of the core names it: in the
// core's own words ("the send queue depth"), never an option's spelling.
// The command layer puts the spelling of the command that ran in their
// place (commands/spellings.cpp, one table); where no option gave it (a
// holder's log, a peer's parameters) the words stand.
enum class Given : unsigned char {
    ib_port,     // the device's port
    gid_index,   // the GID table's entry
    mtu,         // the path MTU asked for
    send_wr,     // the send queue's depth
    recv_wr,     // the receive queue's depth
    send_sge,    // scatter/gather entries of a send
    recv_sge,    // of a receive
    cq_depth,    // the completion queue's depth
    max_inline,  // inline data of a send
    op,          // the operation a test runs
    transport,   // the QPs' transport
    size,        // the message size
    threads,     // the threads of a run
    cpus,        // the CPUs of a run's threads
    cpu,         // the CPU of a run's one thread
    device,      // the RDMA device asked for
    bind,        // the source address asked for
    cm,          // the QPs connect through rdma_cm
    post_list,   // WRs posted in one call
    cq_mod,      // WRs per signalled completion
    qps,         // the QPs of a run
    window,      // the span of a sample
    interval,    // the time between a watch's samples
    listen,      // where a watch serves its metrics
    raddr,       // the remote buffer's address of a post
    rkey,        // its remote key
    cm_port,     // the port rdma_cm listens on
    pkey_index,  // a QP's entry in the P_Key table
    qkey,        // a UD QP's Q_Key
    max_rd_atomic,       // reads and atomics a QP may have in flight as initiator
    max_dest_rd_atomic,  // ... as their target
    dgid,        // the peer's GID in an address vector
    srq,         // the SRQ a QP takes its receives from
    max_wr,      // an SRQ's depth
    max_sge,     // an SRQ's scatter/gather entries per receive
    srq_limit,   // the receives left below which an SRQ raises SRQ_LIMIT_REACHED
    count,       // the work requests of one post
    xrcd,        // the file of an XRC domain
};
inline constexpr std::size_t given_count = static_cast<std::size_t>(Given::xrcd) + 1;

// Its words ("the send queue depth") and its stable name ("send_wr");
// given_from_name: nullopt for a name no Given has.
std::string_view given_words(Given given);
std::string_view given_name(Given given);
std::optional<Given> given_from_name(std::string_view name);

// The mark that stands for it inside an error's text:
// UsageError(fmt::format("{} {} exceeds ...", given(Given::send_wr), n)).
std::string given(Given given);

// A text with its marks replaced by their words.
std::string in_words(const std::string& marked);

// An error's text that may hold given() marks: what() says each in words,
// naming() as the caller names it (the command line: its option).
class MarkedText {
public:
    // The text with its marks (what the holder's replies carry).
    const std::string& marked() const { return marked_; }
    // The text with each mark replaced by name(that Given).
    std::string naming(const std::function<std::string(Given)>& name) const;

protected:
    explicit MarkedText(std::string marked) : marked_(std::move(marked)) {}

private:
    std::string marked_;
};

// Bad input from the user: an unknown device, a value out of range.
struct UsageError : std::runtime_error, MarkedText {
    explicit UsageError(const std::string& text);
    explicit UsageError(const char* text) : UsageError(std::string(text)) {}
};

// The operation failed (no device, a verbs call refused). Its text, too,
// may name what the user gave by a mark ("this server was given the
// device rxe0: leave the device out").
struct OperationError : std::runtime_error, MarkedText {
    explicit OperationError(const std::string& text);
    explicit OperationError(const char* text) : OperationError(std::string(text)) {}
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
