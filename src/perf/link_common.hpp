// What ping-pong, bw and path share around their hot loops: what the user
// asked for (LinkOptions, never changed once parsed and checked) apart from
// what one side's steps decide (LinkSide), the names of ops and transports
// as they travel in the exchange, which op runs on which transport, the
// resources of one QP and CPU pinning.
#pragma once

#include <infiniband/verbs.h>
#include <sched.h>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/json.hpp"
#include "src/net/exchange.hpp"
#include "src/net/messages.hpp"
#include "src/perf/clock.hpp"
#include "src/qp/options.hpp"
#include "src/report/link_header.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

enum class Op { send, write, read, fadd, cas };
// Fetch-and-add and compare-and-swap: 8-byte operands on the peer's
// aligned buffer (IB spec 9.4.5), RC only.
constexpr bool is_atomic(Op op) { return op == Op::fadd || op == Op::cas; }
// One-sided: the peer's CPU takes no part (read and the atomics); the
// requester waits for its own completion.
constexpr bool one_sided(Op op) { return op == Op::read || is_atomic(op); }
// The extended send op (IBV_QP_EX_WITH_*) a QP needs to post `op` with
// ibv_wr_* (LinkSetup::send_ops): the only one a ping-pong run posts.
constexpr std::uint64_t send_ops_flags(Op op)
{
    switch (op) {
    case Op::send: return IBV_QP_EX_WITH_SEND;
    case Op::write: return IBV_QP_EX_WITH_RDMA_WRITE;
    case Op::read: return IBV_QP_EX_WITH_RDMA_READ;
    case Op::fadd: return IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
    case Op::cas: return IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
    }
    return 0;
}
// The operand size of the atomics.
inline constexpr std::uint32_t atomic_bytes = qp::atomic_operand_bytes;
enum class Role { client, server };
enum class InlineMode { automatic, on, off };

// What both tests take from the command line and send to the server.
struct LinkOptions {
    std::string host;  // empty: serve
    std::uint16_t tcp_port = 18615;
    std::string device;
    std::uint8_t port = 1;
    std::optional<std::uint32_t> gid_index;
    Op op = Op::send;
    ibv_qp_type transport = IBV_QPT_RC;
    std::vector<std::uint32_t> sizes{2};
    std::uint64_t iterations = 1000;
    std::optional<double> duration_s;
    std::uint64_t warmup = 100;
    InlineMode inline_mode = InlineMode::automatic;
    std::optional<ibv_mtu> mtu;
    std::chrono::milliseconds timeout{10000};
    // What production sets on its QPs (--tclass, --sl, --flow-label,
    // --pkey-index, --qp-timeout, --retry-cnt, --rnr-retry, --min-rnr-timer),
    // as LinkSetup takes them; the server adopts the client's.
    verbs::QpKnobs knobs;
    // --tclass or --dscp was given (or adopted): with --cm only then is
    // rdma_cm's TOS option set (else the port's default_roce_tos applies).
    bool traffic_class_given = false;
    // rdma_cm (--cm): the QPs connect through it, on `cm_port`; `bind`: the
    // source address (both modes: the TCP exchange's too).
    bool cm = false;
    std::uint16_t cm_port = 18616;
    bool device_given = false;  // -d was given (rdma_cm must use that one)
    std::string bind;
    std::optional<int> cpu;
    std::uint32_t threads = 1;  // worker threads, each with its own QPs (bw) or pair (ping-pong)
    std::vector<int> cpus;      // their CPUs; empty: chosen (the NIC's NUMA node first)
    // Test parameters the server was given explicitly: they must agree with
    // the client's, or the server names the mismatch.
    std::vector<std::string> server_explicit;
};

// What one side of a run decides before its QPs exist, from what was asked:
// built by the steps that decide it (ops::preflight_side, cm_start) and
// handed down to the QPs' set-up and the report. Starts as asked_side.
struct LinkSide {
    std::string device;                      // the device checked ("" before: the first)
    std::uint8_t port = 1;                   // -i, or rdma_cm's
    std::optional<std::uint32_t> gid_index;  // -x, or the GID that holds --bind
    // The device the checks opened, once; the QPs are made on it and a
    // server's second check reuses it.
    verbs::SharedDevice opened;
    // A client's: the GID kinds that reach the host, most wanted first
    // (health::gid_kinds_for), for the GID choice.
    std::vector<decode::GidKind> gid_kinds;
    std::vector<int> cpus;  // the worker threads' CPUs (worker_cpus); empty: one thread, -c's
};
// Where a side starts: the device, port and GID index as asked.
LinkSide asked_side(const LinkOptions& o);

// The shared test parameters as they travel (flat: the exchange carries
// scalars), and the server's adoption of the client's (OperationError
// naming what is malformed or invalid; each test checks its combinations).
Json common_params(const LinkOptions& o);
// How the QPs connect, as the params carry it: "rdma_cm" or "manual".
std::string_view connection_name(const LinkOptions& o);
void adopt_common(LinkOptions& o, const Json& p);

std::string_view op_name(Op op);
// The words, in table order (for the command line's checks and completions).
std::vector<std::string> op_words();
std::vector<std::string> inline_words();
std::string transport_name(ibv_qp_type type);
std::string_view inline_name(InlineMode mode);

// Parse what a peer sent; OperationError names the value and the valid ones.
Op op_from(std::string_view name);
ibv_qp_type transport_from(std::string_view name);

// --srq (bw, ping-pong): a shared receive queue serves receives, so only
// --op send, and here on connected QPs (rc, uc). UsageError naming them.
void check_srq(bool srq, Op op, ibv_qp_type transport);
InlineMode inline_from(std::string_view name);

// UsageError unless the op runs on the transport (IB spec: UC has no RDMA
// read, UD only sends).
void check_op_transport(Op op, ibv_qp_type type);

// UsageError unless an atomic op's sizes are all 8 bytes (its operand).
void check_atomic_sizes(const LinkOptions& o);

// Pins the calling thread; SystemError when the CPU is not allowed.
void pin_cpu(const std::optional<int>& cpu);

// Pins the calling thread to `cpu` (-1: leaves it as it is) while it lives,
// then gives it back the CPUs it was allowed before: a run on the calling
// thread (one ping-pong pair) leaves the rest of the command unpinned.
class PinnedHere {
public:
    explicit PinnedHere(int cpu);
    ~PinnedHere();
    PinnedHere(const PinnedHere&) = delete;
    PinnedHere& operator=(const PinnedHere&) = delete;

private:
    bool pinned_ = false;
    cpu_set_t before_{};
};

inline constexpr std::uint32_t max_threads = 64;

// --threads, --cpus and -c together: UsageError naming what is wrong.
void check_threads(const LinkOptions& o);

// The CPUs of the worker threads: --cpus as given (each one allowed), else
// `threads` CPUs this process may run on, `device`'s NUMA node first; empty
// for one thread (-c pins it). UsageError when there are fewer allowed CPUs
// than threads.
std::vector<int> worker_cpus(const LinkOptions& o, const std::string& device);

// Connects (client) or accepts one (server), then says hello and swaps the
// test parameters: `theirs` gets the peer's. The server must adopt them.
net::Exchange open_exchange(const LinkOptions& o, std::string_view test, const Json& mine, Json& theirs);

// The barrier before a size's run (net::Exchange::ready): "" once both
// sides are ready, or why the peer did not get there in time (a
// TimeoutError's text), so the sizes measured before stay the report.
std::string barrier_failure(net::Exchange& ex);


// The resources of one QP for a test whose largest message is `largest`,
// on the device, port and GID that `side` decided.
verbs::LinkSetup link_setup(const LinkOptions& o, const LinkSide& side, std::uint32_t largest);

// UsageError when a UD message would not fit the path MTU.
void check_ud_fits(const LinkOptions& o, const verbs::LinkResources& res, std::uint32_t largest);

// What both loops' runs (BwRun, LatencyRun) take from the options for one
// size; each test sets the rest. Inline when the QP `res` grants it and the op sends data.
template <class Run>
void set_common_run(Run& run, const LinkOptions& o, std::uint32_t size, const verbs::LinkResources& res)
{
    run.op = o.op;
    run.size = size;
    run.iterations = o.iterations;
    if (o.duration_s)
        run.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(*o.duration_s * 1e9));
    run.warmup = o.warmup;
    run.use_inline = o.inline_mode != InlineMode::off && size <= res.granted_inline() && !one_sided(o.op);
    run.silence_limit = o.timeout;
}

// The report's header from the options, what the side decided (its port,
// its threads' CPUs; none: -c if given), the exchange and the first QP.
void fill_header(report::LinkHeader& h, const LinkOptions& o, const LinkSide& side, net::Exchange& ex,
                 const verbs::LinkResources& res, const Clock& clock);

// A send WR (and its SGE) for `op` of `size` bytes from the send half, to
// the peer's receive half; wr_id, flags and next are the caller's.
void prepare_send_wr(ibv_send_wr& wr, ibv_sge& sge, const verbs::LinkResources& res, Op op, std::uint32_t size);
// A receive WR covering the whole receive half (so receives posted for one
// size serve every size).
void prepare_recv_wr(ibv_recv_wr& wr, ibv_sge& sge, const verbs::LinkResources& res);

}  // namespace qps::perf
