#include "src/ops/side_checks.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/decode/qp.hpp"
#include "src/health/preflight.hpp"
#include "src/verbs/gid_choice.hpp"
#include "src/perf/link_checks.hpp"

namespace qps::ops {

namespace {

void preflight_link(const perf::LinkOptions& o, perf::LinkSide& side, std::uint32_t largest, std::uint32_t qps)
{
    health::PreflightSpec spec;
    spec.device = side.device;
    spec.port = side.port;
    spec.gid_index = side.gid_index;
    if (o.mtu)
        spec.mtu = *o.mtu;
    spec.cpu = o.cpu;
    spec.with = {.cm = o.cm, .ud = o.transport == IBV_QPT_UD, .xrc = decode::is_xrc(o.transport)};
    spec.memlock_bytes = qps * verbs::registered_bytes(perf::link_setup(o, side, largest));
    spec.memlock_what = fmt::format("the test buffers ({} QP{} for {}-byte messages)", qps, qps == 1 ? "" : "s",
                                    largest);
    if (!o.host.empty())
        spec.destination = health::read_destination(o.host, o.timeout);
    spec.opened = side.opened;
    health::Preflight checked = health::preflight(spec);
    side.device = checked.device;
    side.opened = std::move(checked.opened);
    side.gid_kinds = std::move(checked.gid_kinds);
}

// --bind by hand (rdma_cm binds its own): the source GID is the one that
// holds the address, chosen before any network step.
void bind_gid(const perf::LinkOptions& o, perf::LinkSide& side)
{
    if (o.cm || o.bind.empty() || !side.opened)
        return;
    const auto index =
        verbs::index_of_address(verbs::read_gid_candidates(side.opened->ctx.get(), side.port), o.bind);
    if (!index)
        throw UsageError(fmt::format("{} {}: no GID of {} port {} holds that address: give a numeric address of "
                                     "its netdev ('qpscope ports' lists each GID's)",
                                     given(Given::bind), o.bind, side.opened->name, side.port));
    if (o.gid_index && *o.gid_index != *index)
        throw UsageError(fmt::format("{} {} is GID index {} of {} port {}, and {} {} was given: give one of them",
                                     given(Given::bind), o.bind, *index, side.opened->name, side.port,
                                     given(Given::gid_index), *o.gid_index));
    side.gid_index = *index;
}

}  // namespace

perf::LinkSide preflight_side(const perf::LinkOptions& o, std::uint32_t qps, perf::LinkSide where)
{
    preflight_link(o, where, *std::max_element(o.sizes.begin(), o.sizes.end()), qps);
    bind_gid(o, where);
    perf::check_iwarp(o, where);
    perf::check_pkey_index(o, where);
    perf::check_atomic_cap(o, where);
    where.cpus = perf::worker_cpus(o, where.device);
    return where;
}

SessionStart start_session(const perf::LinkOptions& asked, std::string_view test, std::uint32_t qps,
                           const Json& params)
{
    // Everything local first: a server checks before it listens.
    perf::LinkSide side = preflight_side(asked, qps, perf::asked_side(asked));
    perf::CmStart cm = perf::cm_start(asked, side);  // --cm: resolved or listening
    side.port = cm.port;
    if (cm.device_changed) {  // rdma_cm's device: checked too
        perf::LinkSide cms = perf::asked_side(asked);
        cms.device = cm.device;
        cms.port = cm.port;
        side = preflight_side(asked, qps, std::move(cms));
    }
    perf::pin_cpu(asked.cpu);
    const perf::Clock clock = perf::Clock::calibrate();
    // Connect and agree on the test: the server names the parameters it was
    // given that differ from the client's.
    Json theirs;
    net::Exchange ex = perf::open_exchange(asked, test, params, theirs);
    return {std::move(side), std::move(cm), clock, std::move(ex), std::move(theirs)};
}

}  // namespace qps::ops
