#include "src/perf/pingpong/run.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/net/exchange.hpp"
#include "src/perf/sizes.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/test_common.hpp"

namespace qps::perf {

namespace {

using Json = nlohmann::ordered_json;

void adopt(PingPongOptions& o, const Json& p)
{
    adopt_common(o, p);
    check_combination(o);
}

}  // namespace

void check_combination(const PingPongOptions& o)
{
    check_op_transport(o.op, o.transport);
    if (o.op == Op::write)
        for (auto s : o.sizes)
            if (s < 1)
                throw UsageError("--op write needs sizes of at least 1 byte");
}

report::PingPongReport run_ping_pong(const PingPongOptions& given,
                                     const std::function<void(const report::SizeResult&)>& progress)
{
    PingPongOptions o = given;
    const bool client = !o.host.empty();
    // 0. Everything local first: a server checks before it listens.
    check_local(o, *std::max_element(o.sizes.begin(), o.sizes.end()), 1);
    pin_cpu(o.cpu);
    const Clock clock = Clock::calibrate();

    // 1. Connect and agree on the test: the server adopts the client's
    //    parameters, naming any it was given that differ.
    Json theirs;
    net::Exchange ex = open_exchange(o, "ping-pong", common_params(o), theirs);
    if (!client) {
        adopt(o, theirs);
        check_local(o, *std::max_element(o.sizes.begin(), o.sizes.end()), 1);  // the client's sizes and MTU
    }

    // 2. Resources sized for the largest message, then the endpoints.
    const std::uint32_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    verbs::TestResources res(test_setup(o, largest));
    check_ud_fits(o, res, largest);
    res.connect(remote_from(ex.endpoints(endpoint_from(res.local()))));
    if (o.op == Op::send)
        prepost_receives(res, largest);

    report::PingPongReport rep;
    fill_header(rep, o, ex, res, clock);
    rep.one_way = o.op != Op::read;
    rep.clock_why = clock.info().why;
    rep.clock_ticks_per_ns = clock.info().ticks_per_ns;
    rep.clock_calibration_ms = clock.info().calibration_ms;
    rep.clock_calibration_error_ppm = clock.info().calibration_error_ppm;

    // 3. One run per size, between barriers; the server reports back.
    for (const std::uint32_t size : o.sizes) {
        LatencyRun run;
        run.op = o.op;
        run.size = size;
        run.iterations = o.iterations;
        if (o.duration_s)
            run.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(*o.duration_s * 1e9));
        run.warmup = o.warmup;
        run.use_inline = o.inline_mode != InlineMode::off && size <= res.granted_inline() && o.op != Op::read;
        rep.inline_used = rep.inline_used || run.use_inline;
        run.silence_limit = o.timeout;
        run.oob_fd = ex.channel().fd();

        ex.ready();
        const LatencyResult r = run_latency(res, client ? Role::client : Role::server, run, clock);
        report::SizeResult sr;
        sr.local = report::summarize(size, r.histogram, r.measured_seconds, r.aborted, r.abort_reason,
                                     o.histogram_rows);
        try {
            sr.peer = report::latency_stats_from_json(
                ex.results(report::to_json(sr.local), r.aborted ? std::chrono::milliseconds(1000) : o.timeout));
        } catch (const std::exception&) {
            if (!r.aborted)
                throw;
            // The peer is gone: keep what this side measured.
        }
        rep.sizes.push_back(sr);
        if (progress)
            progress(sr);
        if (r.aborted) {
            rep.aborted = true;
            rep.abort_reason = r.abort_reason;
            break;
        }
    }
    return rep;
}

}  // namespace qps::perf
