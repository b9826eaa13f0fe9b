// One side of a two-sided test (ping-pong, bw, path) before its QPs exist:
// what it checks on its own host before any network step, and again after
// adopting the client's parameters (src/health/preflight.hpp's checks for
// the test's options), and the session set-up that ping-pong and bw share.
// What was asked stays as parsed; what the steps decide is a LinkSide.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "src/json.hpp"
#include "src/net/exchange.hpp"
#include "src/perf/clock.hpp"
#include "src/perf/link_common.hpp"
#include "src/perf/link_connect.hpp"

namespace qps::ops {

// What a side checks before it listens or connects, and again after
// adopting the client's parameters: src/health/preflight.hpp's checks for
// these options on the device, port and GID index of `where` (the device
// file, the port, -x, --mtu, -c, and locked memory for `qps` QPs' buffers
// sized for the largest size; `where.opened` is reused), the GID that
// holds --bind, iWARP, the P_Key index, atomics, then the worker threads'
// CPUs. Throws the first failure; returns what it decided: the device
// checked ("" = the first), the device it opened, the GID index and kinds,
// the CPUs.
perf::LinkSide preflight_side(const perf::LinkOptions& o, std::uint32_t qps, perf::LinkSide where);

// The steps of a two-sided test before its QPs, as one: everything local
// first (a server checks before it listens), rdma_cm's start (--cm; its
// device checked too), this side pinned and its clock calibrated, then the
// exchange connected and the test's parameters swapped (`theirs`: the
// peer's).
struct SessionStart {
    perf::LinkSide side;
    perf::CmStart cm;
    perf::Clock clock;
    net::Exchange ex;
    Json theirs;
};
SessionStart start_session(const perf::LinkOptions& asked, std::string_view test, std::uint32_t qps,
                           const Json& params);

// A two-sided test's session: `test` is what runs, as asked on a client, or
// on a server the client's parameters adopted (and this side checked again
// for them).
template <class Options>
struct LinkSession {
    Options test;
    perf::LinkSide side;
    perf::CmStart cm;
    perf::Clock clock;
    net::Exchange ex;
};

// How one test counts its QPs, says its parameters and adopts the client's.
template <class Options>
struct TestTerms {
    std::string_view name;  // "ping-pong", "bw": both sides must run the same
    std::uint32_t (*qps)(const Options&);
    Json (*params)(const Options&);
    Options (*adopted)(const Options& mine, const Json& theirs);  // OperationError: malformed or invalid
};

template <class Options>
LinkSession<Options> open_session(const Options& asked, const TestTerms<Options>& t)
{
    SessionStart s = start_session(asked, t.name, t.qps(asked), t.params(asked));
    if (!asked.host.empty())
        return {asked, std::move(s.side), std::move(s.cm), s.clock, std::move(s.ex)};
    Options test = t.adopted(asked, s.theirs);
    perf::LinkSide side = preflight_side(test, t.qps(test), std::move(s.side));  // the client's sizes, MTU, QPs
    return {std::move(test), std::move(side), std::move(s.cm), s.clock, std::move(s.ex)};
}

}  // namespace qps::ops
