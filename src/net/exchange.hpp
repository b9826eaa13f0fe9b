// The out-of-band exchange of ping-pong and bw, step by step.
//
// Order of messages (client = the side that connects):
//
//   step       client → server                server → client
//   1 hello    {"type":"hello",...}            {"type":"hello",...}
//   2 params   {"type":"params",...}           {"type":"params",...}
//   3 endpoint {"type":"endpoint",...}         {"type":"endpoint",...}
//   4 ready    {"type":"ready"}                {"type":"ready"}
//   5 results  {"type":"results",...}          {"type":"results",...}
//
// Each step is one pair: the client sends and then receives, the server
// receives and then answers, so neither can wait for the other forever and
// a server never speaks to a client it has not heard. Each side checks what
// it received only after it sent its own message: both sides see both
// messages and report the same mismatch (version, test, parameters), each
// from its own side. A side that gives up for a reason its peer cannot see
// (an invalid message, a local failure between steps: call abort()) first
// sends {"type":"error","message":...}; the peer then reports
// "exchange with X: peer gave up: ...". Deadlines and lost peers are
// TimeoutError (nobody left to tell).
//
// A side whose run stalled while the exchange still answers calls
// stalled() instead of abort(): it sends {"type":"stalled",...} with its
// evidence (what its port counted) and waits a moment for the peer's. The
// peer meets that message in its next receive, answers it with its own
// evidence (answer_stalls_with()), keeps the stalled side's
// (peer_evidence()) and reports "peer gave up" as for an error: so both
// sides can say where the packets stopped.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/net/channel.hpp"
#include "src/net/messages.hpp"

namespace qps::net {

enum class Role { client, server };
std::string_view role_name(Role role);

inline constexpr std::chrono::milliseconds default_step_timeout{10000};
// How long abort() tries to deliver its error message.
inline constexpr std::chrono::milliseconds abort_send_timeout{1000};

class Exchange {
public:
    // test: "ping-pong" or "bw". step_timeout bounds each step's wait for the
    // peer's message (ready() and results() can take a longer one).
    Exchange(Channel channel, Role role, std::string test,
             std::chrono::milliseconds step_timeout = default_step_timeout);

    // Step 1. Returns the peer's hello; throws on another tool or exchange
    // version (OperationError), or another test (UsageError).
    Hello hello();
    // Step 2. local: a flat object of the test's parameters. Returns the
    // peer's; UsageError naming every must_agree mismatch:
    //   "parameters differ from peer 192.0.2.1:45678: size: local 64, remote 4096"
    // Each side's --timeout (step_timeout) goes with them: see beat_limit().
    Json params(const Json& local, const std::vector<std::string>& must_agree);
    // The peer's --timeout (known after params(); until then this side's).
    std::chrono::milliseconds peer_timeout() const { return peer_timeout_.value_or(step_timeout_); }
    // What both sides' heartbeats are paced by: the smaller --timeout of
    // the two, so a side judging the other by a limit shorter than the
    // other's own still hears it often enough (net::PeerWatch). Each side
    // still judges its peer by its own --timeout.
    std::chrono::milliseconds beat_limit() const { return std::min(step_timeout_, peer_timeout()); }
    // Step 3. Returns the peer's endpoint.
    Endpoint endpoints(const Endpoint& local);
    // Step 4. The barrier: returns once both sides are ready.
    void ready();
    void ready(std::chrono::milliseconds timeout, Wait wait = Wait::total);
    // Step 4 in two halves, for a client that keeps polling in between
    // (bw: it says it is done, then waits until the server is done too; a
    // server answers with ready(), which receives first). Client only.
    void announce_ready();
    void await_ready(std::chrono::milliseconds timeout, Wait wait = Wait::total);
    // Step 5. Returns the peer's results (timeout: at least the run's length).
    // Wait::silence (a run's end): the timeout counts from the peer's last
    // byte, so its heartbeats or a message still arriving keep this side
    // waiting, as the heartbeat's rule would (Channel::receive).
    Json results(const Json& local);
    Json results(const Json& local, std::chrono::milliseconds timeout, Wait wait = Wait::total);

    // Tells the peer why this side gives up (best effort, never throws;
    // only the first call sends).
    void abort(std::string_view reason) noexcept;
    // For a run that stalled: tells the peer why with this side's evidence
    // and returns the peer's, waiting for it until `wait` passes without a
    // byte from the peer (Wait::silence: its heartbeats or its answer in
    // flight keep this side waiting; nullopt: none came, or this side had
    // given up already). Never throws.
    std::optional<Json> stalled(std::string_view reason, const Json& evidence, std::chrono::milliseconds wait) noexcept;
    // What this side answers a stalled peer with (its evidence, an object).
    void answer_stalls_with(std::function<Json()> evidence) { answer_stalls_ = std::move(evidence); }
    // The evidence of a peer that said its run stalled (set by the receive
    // that met its message).
    const std::optional<Json>& peer_evidence() const { return peer_evidence_; }

    Channel& channel() { return channel_; }
    Role role() const { return role_; }

private:
    // Sends `mine` and receives the peer's message of `type`, in the role's
    // order; answers a peer's error message with an exception.
    Json swap(const Json& mine, std::string_view type, std::chrono::milliseconds timeout, Wait wait = Wait::total);
    void send_part(const Json& mine);
    Json receive_part(std::string_view type, std::chrono::milliseconds timeout, Wait wait = Wait::total);
    // Runs parse(theirs); on failure tells the peer and adds the peer's name.
    template <class Parse>
    auto checked(Parse&& parse);

    Channel channel_;
    Role role_;
    std::string test_;
    std::chrono::milliseconds step_timeout_;
    std::optional<std::chrono::milliseconds> peer_timeout_;
    bool aborted_ = false;
    std::function<Json()> answer_stalls_;
    std::optional<Json> peer_evidence_;
};

}  // namespace qps::net
