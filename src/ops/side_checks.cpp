#include "src/ops/side_checks.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/error.hpp"
#include "src/health/preflight.hpp"
#include "src/verbs/gid_choice.hpp"
#include "src/perf/link_checks.hpp"

namespace qps::ops {

namespace {

void preflight_link(perf::LinkOptions& o, std::uint32_t largest, std::uint32_t qps)
{
    health::PreflightSpec spec;
    spec.device = o.device;
    spec.port = o.port;
    spec.gid_index = o.gid_index;
    if (o.mtu)
        spec.mtu = *o.mtu;
    spec.cpu = o.cpu;
    spec.with = {.cm = o.cm, .ud = o.transport == IBV_QPT_UD};
    spec.memlock_bytes = qps * verbs::registered_bytes(perf::link_setup(o, largest));
    spec.memlock_what = fmt::format("the test buffers ({} QP{} for {}-byte messages)", qps, qps == 1 ? "" : "s",
                                    largest);
    if (!o.host.empty())
        spec.destination = health::read_destination(o.host, o.timeout);
    spec.opened = o.opened;
    health::Preflight checked = health::preflight(spec);
    o.device = checked.device;
    o.opened = std::move(checked.opened);
    o.gid_kinds = std::move(checked.gid_kinds);
}

// --bind by hand (rdma_cm binds its own): the source GID is the one that
// holds the address, chosen before any network step.
void bind_gid(perf::LinkOptions& o)
{
    if (o.cm || o.bind.empty() || !o.opened)
        return;
    const auto index = verbs::index_of_address(verbs::read_gid_candidates(o.opened->ctx.get(), o.port), o.bind);
    if (!index)
        throw UsageError(fmt::format("--bind {}: no GID of {} port {} holds that address: give a numeric address of "
                                     "its netdev ('qpscope ports' lists each GID's)",
                                     o.bind, o.opened->name, o.port));
    if (o.gid_index && *o.gid_index != *index)
        throw UsageError(fmt::format("--bind {} is GID index {} of {} port {}, and -x {} was given: give one of them",
                                     o.bind, *index, o.opened->name, o.port, *o.gid_index));
    o.gid_index = *index;
}

}  // namespace

std::vector<int> preflight_side(perf::LinkOptions& o, std::uint32_t qps)
{
    preflight_link(o, *std::max_element(o.sizes.begin(), o.sizes.end()), qps);
    bind_gid(o);
    perf::check_iwarp(o);
    perf::check_pkey_index(o);
    perf::check_atomic_cap(o);
    return perf::worker_cpus(o);
}

}  // namespace qps::ops
