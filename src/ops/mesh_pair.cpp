#include "src/ops/mesh_pair.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/messages.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/pingpong/loop.hpp"
#include "src/perf/link_common.hpp"
#include "src/util/json_text.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::ops {

std::string rank_name(const mesh::RankInfo& r) { return fmt::format("rank {} ({})", r.rank, r.host); }

namespace {

struct PairFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The lock-step of the two ranks: at every step each sends its message
// (an error, or what the step carries) and reads the partner's. A side
// that failed says so and leaves at once, so its partner never waits for
// a message that will not come.
class Steps {
public:
    Steps(PairLink& link, const PairContext& ctx) : link_(link), ctx_(ctx) {}

    // Sends `mine` (plus the step's name) and returns the partner's message.
    Json swap(std::string_view step, Json mine)
    {
        mine["step"] = step;
        mine["error"] = nullptr;
        link_.send(util::json_text(mine));
        const auto text = link_.receive(ctx_.deadline);
        if (!text) {
            if (net::interrupt_pending())
                throw PairFailure("interrupted");
            throw PairFailure(fmt::format("{} did not answer at step '{}' within the pair's timeout ({:g} s)",
                                          rank_name(*ctx_.partner), step, ctx_.tests.timeout_s));
        }
        Json theirs = Json::parse(*text, nullptr, false);
        if (theirs.is_discarded() || !theirs.is_object() || !theirs.contains("step"))
            throw PairFailure(fmt::format("{} sent a malformed message at step '{}'", rank_name(*ctx_.partner), step));
        if (theirs.contains("error") && theirs["error"].is_string())
            throw PairFailure(fmt::format("{}: {}", rank_name(*ctx_.partner), theirs["error"].get<std::string>()));
        if (theirs["step"] != step)
            throw PairFailure(fmt::format("{} is at step '{}', this rank at '{}'", rank_name(*ctx_.partner),
                                          util::json_text(theirs["step"]), step));
        return theirs;
    }

    // While this side waits on something else (rdma_cm's connect request):
    // a message from the partner now can only be its failure, which ends
    // the pair with its words.
    void poll_failure(std::string_view step)
    {
        const auto text = link_.receive(std::chrono::steady_clock::now());
        if (!text)
            return;
        const Json theirs = Json::parse(*text, nullptr, false);
        if (theirs.is_object() && theirs.contains("error") && theirs["error"].is_string())
            throw PairFailure(fmt::format("{}: {}", rank_name(*ctx_.partner), theirs["error"].get<std::string>()));
        throw PairFailure(fmt::format("{} sent a message at step '{}' while this rank waited for its rdma_cm connect "
                                      "request",
                                      rank_name(*ctx_.partner), step));
    }

    // This side failed at `step`: tells the partner, then ends the pair.
    [[noreturn]] void fail(std::string_view step, const std::string& why)
    {
        Json j{{"step", step}, {"error", fmt::format("{}: {}", step, why)}};
        link_.send(util::json_text(j));
        throw PairFailure(fmt::format("{}: {}: {}", rank_name(*ctx_.mine), step, why));
    }

private:
    PairLink& link_;
    const PairContext& ctx_;
};

std::chrono::milliseconds remaining(Deadline deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max(left, std::chrono::milliseconds(1000));
}

mesh::LatencyFigures latency_figures(const perf::LatencyResult& r)
{
    mesh::LatencyFigures f;
    f.samples = r.measured;
    f.p50_us = static_cast<double>(r.histogram.quantile(0.5)) / 1000.0;
    f.p99_us = static_cast<double>(r.histogram.quantile(0.99)) / 1000.0;
    f.max_us = static_cast<double>(r.histogram.max()) / 1000.0;
    f.mean_us = r.histogram.mean() / 1000.0;
    return f;
}

mesh::BandwidthFigures bandwidth_figures(const report::DirectionStats& d)
{
    mesh::BandwidthFigures f;
    f.messages = d.messages;
    f.bytes = d.bytes;
    f.seconds = d.seconds;
    f.gbps = d.bytes_per_s * 8 / 1e9;
    f.peak_gbps = d.peak_bytes_per_s * 8 / 1e9;
    f.min_gbps = d.min_bytes_per_s * 8 / 1e9;
    return f;
}

// A write run from this side; its own "peer done" is a pipe it writes
// itself once it has sent (the target of writes has nothing to poll).
perf::BwResult send_writes(verbs::LinkResources& res, const PairContext& ctx, const perf::Clock& clock)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        throw std::runtime_error("pipe2 failed");
    perf::BwRun run;
    run.op = perf::Op::write;
    run.size = ctx.tests.bw_size;
    run.iterations = ctx.tests.bw_iterations;
    if (ctx.tests.duration_s)
        run.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(*ctx.tests.duration_s * 1e9));
    run.warmup = ctx.tests.warmup;
    run.sends = true;
    run.receives = false;
    run.client = true;
    run.oob_fd = fds[0];
    run.silence_limit = remaining(ctx.deadline);
    const int signal_fd = fds[1];
    run.on_sent = [signal_fd] { [[maybe_unused]] auto n = ::write(signal_fd, "x", 1); };
    perf::BwResult r;
    try {
        r = perf::run_bandwidth({&res}, run, clock);
    } catch (...) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw;
    }
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
}

// One direction: `sender` writes, the other checks what arrived.
void bandwidth_direction(Steps& steps, verbs::LinkResources& res, const PairContext& ctx, const perf::Clock& clock,
                         bool i_send, std::string_view step, std::optional<mesh::BandwidthFigures>& figures,
                         std::string& verified)
{
    if (i_send) {
        perf::fill_pattern(res.send_buf(), ctx.tests.bw_size);
        perf::BwResult r;
        try {
            r = send_writes(res, ctx, clock);
        } catch (const std::exception& e) {
            steps.fail(step, e.what());
        }
        if (r.aborted || !r.tx)
            steps.fail(step, r.abort_reason.empty() ? "the write run did not finish" : r.abort_reason);
        figures = bandwidth_figures(*r.tx);
        steps.swap(step, Json::object());
        return;
    }
    steps.swap(step, Json::object());
    if (const auto bad = perf::check_pattern(res.recv_buf(), ctx.tests.bw_size))
        steps.fail(step, fmt::format("the data that arrived differs: {}", *bad));
    verified = "ok";
}

// This side's endpoint for the partner's, over the link (step "endpoint").
net::Endpoint swap_endpoints(Steps& steps, const verbs::LinkResources& res)
{
    const Json theirs = steps.swap("endpoint", Json{{"endpoint", net::to_message(res.local())}});
    try {
        if (!theirs.contains("endpoint"))
            throw std::runtime_error("the partner's endpoint message has no endpoint");
        return net::parse_endpoint(theirs["endpoint"]);
    } catch (const std::exception& e) {
        steps.fail("connect", e.what());
    }
}

// By hand: the endpoints swapped over the link, each side to RTS.
void manual_connect(Steps& steps, const verbs::LinkSetup& setup, std::optional<verbs::LinkResources>& res)
{
    try {
        res.emplace(setup);
    } catch (const std::exception& e) {
        steps.fail("endpoint", e.what());
    }
    const net::Endpoint theirs = swap_endpoints(steps, *res);
    try {
        res->connect(theirs);
    } catch (const std::exception& e) {
        steps.fail("connect", e.what());
    }
}

// rdma_cm: rank a listens on its address (a port of the kernel's choosing,
// sent over the link), rank b resolves it from its own address and
// connects; a accepts. Then the endpoints swap for the buffers (RDMA
// writes). A side that fails tells the other; a waits for the request in
// slices, so b's failure ends its wait at once.
void cm_connect(Steps& steps, const PairContext& ctx, const verbs::LinkSetup& setup,
                std::optional<verbs::CmSide>& cm, std::optional<verbs::LinkResources>& res, bool is_a)
{
    std::uint16_t port = 0;
    if (is_a) {
        try {
            cm.emplace();
            cm->listen(ctx.mine->cm_address, 0);
            port = ntohs(rdma_get_src_port(cm->listener()));
        } catch (const std::exception& e) {
            steps.fail("rdma_cm listen", e.what());
        }
        steps.swap("rdma_cm listen", Json{{"cm_port", port}});
        std::uint32_t index = 0;
        rdma_conn_param theirs{};
        verbs::CmId request;
        while (!request) {
            try {
                request = cm->next_request(std::chrono::milliseconds(200), index, theirs);
            } catch (const TimeoutError&) {
                steps.poll_failure("rdma_cm connect");
                if (std::chrono::steady_clock::now() >= ctx.deadline)
                    steps.fail("rdma_cm connect",
                               fmt::format("no rdma_cm connect request from {} within the pair's timeout ({:g} s): "
                                           "UDP 4791 dropped on the way, or its connect failed",
                                           rank_name(*ctx.partner), ctx.tests.timeout_s));
            } catch (const std::exception& e) {
                steps.fail("rdma_cm connect", e.what());
            }
        }
        rdma_cm_id* raw = request.get();
        try {
            res.emplace(setup, request);
        } catch (const std::exception& e) {
            if (request)
                cm->reject(raw, fmt::format("qpscope-mesh {}: {}", rank_name(*ctx.mine), e.what()));
            steps.fail("rdma_cm connect", e.what());
        }
        try {
            cm->accept(res->cm_id(), res->cm_param(&theirs), remaining(ctx.deadline));
            res->cm_established();
        } catch (const std::exception& e) {
            steps.fail("rdma_cm connect", e.what());
        }
    } else {
        const Json theirs = steps.swap("rdma_cm listen", Json::object());
        try {
            port = theirs.at("cm_port").get<std::uint16_t>();
            cm.emplace();
            verbs::CmTarget target;
            target.host = ctx.partner->cm_address;
            target.port = port;
            target.bind = ctx.mine->cm_address;
            target.take_knobs(setup, setup.traffic_class != 0);
            verbs::CmId id = cm->resolve(target);
            res.emplace(setup, id);
            cm->connect(res->cm_id(), res->cm_param(), 0, remaining(ctx.deadline),
                        fmt::format("{} at {} port {}", rank_name(*ctx.partner), ctx.partner->cm_address, port));
            res->cm_established();
        } catch (const std::exception& e) {
            steps.fail("rdma_cm connect", e.what());
        }
    }
    res->cm_peer(swap_endpoints(steps, *res));  // the partner's buffer, for the RDMA writes
}

}  // namespace

mesh::PairResult run_pair(const PairContext& ctx, PairLink& link, const perf::Clock& clock)
{
    mesh::PairResult result;
    result.pair = ctx.pair;
    result.round = ctx.round;
    // The tests' time only: QP set-up and the endpoint exchange are the
    // round's coordination, as is all before and after (RoundTiming).
    std::optional<std::chrono::steady_clock::time_point> started;
    const bool is_a = ctx.me == ctx.pair.a;
    Steps steps(link, ctx);
    try {
        // Both ranks know both set-ups: a failed one ends the pair without a word.
        for (const mesh::RankInfo* r : {ctx.mine, ctx.partner})
            if (!r->setup_error.empty())
                throw PairFailure(fmt::format("{} could not set up: {}", rank_name(*r), r->setup_error));

        verbs::LinkSetup setup;
        static_cast<verbs::QpKnobs&>(setup) = ctx.tests.knobs;
        setup.device = ctx.mine->device;
        setup.opened = ctx.device;
        setup.port = static_cast<std::uint8_t>(ctx.mine->port);
        setup.gid_index = ctx.mine->gid_index;
        setup.buffer_bytes = std::max({ctx.tests.lat_size, ctx.tests.bw_size, 64u});
        setup.max_inline = std::min<std::uint32_t>(ctx.tests.lat_size, 256);
        // Declared before the QP: rdma_cm's event channel outlives its ID.
        std::optional<verbs::CmSide> cm;
        std::optional<verbs::LinkResources> res;
        if (ctx.tests.cm)
            cm_connect(steps, ctx, setup, cm, res, is_a);
        else
            manual_connect(steps, setup, res);
        try {
            perf::prepost_receives(*res, ctx.tests.lat_size);
        } catch (const std::exception& e) {
            steps.fail("connect", e.what());
        }
        steps.swap("connect", Json::object());
        started = std::chrono::steady_clock::now();

        if (ctx.tests.lat) {
            perf::LatencyRun run;
            run.op = perf::Op::send;
            run.size = ctx.tests.lat_size;
            run.iterations = ctx.tests.lat_iterations;
            run.warmup = ctx.tests.warmup;
            run.use_inline = ctx.tests.lat_size <= res->granted_inline();
            run.silence_limit = remaining(ctx.deadline);
            perf::LatencyResult r;
            try {
                r = perf::run_latency(*res, is_a ? perf::Role::client : perf::Role::server, run, clock);
            } catch (const std::exception& e) {
                steps.fail("latency", e.what());
            }
            if (r.aborted)
                steps.fail("latency", r.abort_reason);
            (is_a ? result.lat_a : result.lat_b) = latency_figures(r);
            steps.swap("latency", Json::object());
        }
        if (ctx.tests.bw) {
            bandwidth_direction(steps, *res, ctx, clock, is_a, "bandwidth a->b", result.bw_ab, result.verified_ab);
            bandwidth_direction(steps, *res, ctx, clock, !is_a, "bandwidth b->a", result.bw_ba, result.verified_ba);
        }
        result.status = mesh::PairStatus::ok;
    } catch (const PairFailure& e) {
        result.status = mesh::PairStatus::failed;
        result.cause = e.what();
    }
    if (started)
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - *started).count();
    return result;
}

}  // namespace qps::ops
