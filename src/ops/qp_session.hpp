// What the `qp` commands do, on the client side: requests to the holder,
// the steps of `create --to` and `--pair`, and the decoded results.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "src/kernel/rdma_netlink.hpp"
#include "src/qp/attributes.hpp"
#include "src/qp/options.hpp"
#include "src/report/qp.hpp"
#include "src/verbs/create_qp.hpp"

namespace qps::ops {

struct CreateSpec {
    verbs::CreateRequest create;
    qp::ParsedModify attributes;             // for --to / --pair
    ibv_qp_state target = IBV_QPS_RESET;
    bool pair = false;
    std::chrono::seconds idle{600};
};

struct StepOutcome {
    std::uint32_t qpn;
    ibv_qp_state from, to;
    std::uint32_t mask;
    std::vector<std::string> defaulted;
};

struct CreateOutcome {
    std::vector<report::QpReport> qps;
    std::vector<StepOutcome> steps;
    std::vector<std::string> notes;
};

// The state `qp create` walks its QPs to: --to as given (`to`, parsed;
// UsageError for a bad one), else RTS for --pair (two connected QPs) and
// RESET for one QP.
ibv_qp_state create_target(const std::string& to, bool pair);

// Whether create_qps connects the new QPs (moves them to RTR or RTS, as
// --pair does by default): its local checks then include the device's
// transport (refused on iWARP) and the port's state.
bool connects(const CreateSpec& spec);

CreateOutcome create_qps(const CreateSpec& spec);

struct ModifyOutcome {
    std::uint32_t qpn = 0;
    ibv_qp_state from = IBV_QPS_RESET;
    std::optional<ibv_qp_state> to;
    std::uint32_t mask = 0;
    Json sent;                          // attributes as sent (raw)
    std::vector<std::string> checks;    // checks that passed
    std::vector<std::string> notes;     // e.g. a duration rounded to a code
    bool dry_run = false;
    int refused_errno = 0;              // the kernel refused: its errno
    std::optional<report::QpReport> after;
};

ModifyOutcome modify_qp(std::uint32_t qpn, const qp::ParsedModify& m, bool dry_run);

// A QP this user's holder holds, or nullopt when the holder does not hold it
// (or no holder runs).
std::optional<report::QpReport> query_held(std::uint32_t qpn);
// `qp query --xrcd FILE QPN`: the xrc-recv QP opened by its number in the
// XRC domain on FILE (absolute), queried and closed; the holder started
// when none runs. OperationError by name on a device without XRC.
report::QpReport query_xrc(std::uint32_t qpn, const std::string& device, const std::string& xrcd);
std::vector<report::QpReport> list_held();

struct PostSpec {
    std::uint32_t qpn = 0;
    qp::PostRequest request;                // the operation and its operands, checked (parse_post_flags)
    std::chrono::milliseconds wait{0};  // 0: the QP's derived retry wait plus a margin
};

// An atomic's operands and what it fetched: the 8 bytes at the remote
// address before the operation, as the NIC returned them into the QP's
// local buffer.
struct AtomicOutcome {
    std::uint64_t remote_addr = 0;
    std::uint32_t rkey = 0;
    std::optional<std::uint64_t> add;            // fadd
    std::optional<std::uint64_t> compare, swap;  // cas
    std::optional<std::uint64_t> fetched;        // on a successful completion
    std::optional<bool> swapped;                 // cas, on success: fetched == compare
};

// The SRQ a QP takes its receives from, as a post left it.
struct SrqCounts {
    std::uint32_t id = 0;
    std::uint64_t posted = 0, consumed = 0;
};

struct PostOutcome {
    std::uint32_t qpn = 0;
    std::string operation;  // "recv" for --recv
    std::uint32_t size = 0;
    std::uint32_t count = 1;                   // WRs posted
    std::optional<std::uint32_t> completed, succeeded;  // of them (count > 1)
    std::optional<std::uint32_t> peer_completions;      // the held peer's receive completions (count > 1)
    std::optional<SrqCounts> srq;              // --recv into an SRQ
    std::optional<std::string> rnr;            // RNR_RETRY_EXC_ERR to a held peer: which queue ran dry
    double waited_ms = 0;
    std::chrono::milliseconds wait{0};
    bool timed_out = false;
    std::optional<report::CompletionReport> completion, peer_completion;
    std::optional<AtomicOutcome> atomic;  // --op fadd|cas
    std::optional<report::QpReport> after;
};

PostOutcome post_qp(const PostSpec& spec);

struct DestroyOutcome {
    std::vector<std::uint32_t> destroyed;
    bool holder_exits = false;
};

DestroyOutcome destroy_qps(std::optional<std::uint32_t> qpn);  // nullopt: all

}  // namespace qps::ops
