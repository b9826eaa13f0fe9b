#include "src/ops/side_checks.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "src/health/preflight.hpp"

namespace qps::perf {

namespace {

void preflight_link(LinkOptions& o, std::uint32_t largest, std::uint32_t qps)
{
    health::PreflightSpec spec;
    spec.device = o.device;
    spec.port = o.port;
    spec.gid_index = o.gid_index;
    if (o.mtu)
        spec.mtu = *o.mtu;
    spec.cpu = o.cpu;
    spec.memlock_bytes = qps * verbs::registered_bytes(link_setup(o, largest));
    spec.memlock_what = fmt::format("the test buffers ({} QP{} for {}-byte messages)", qps, qps == 1 ? "" : "s",
                                    largest);
    if (!o.host.empty())
        spec.destination = health::read_destination(o.host);
    spec.opened = o.opened;
    health::Preflight checked = health::preflight(spec);
    o.device = checked.device;
    o.opened = std::move(checked.opened);
    o.gid_kinds = std::move(checked.gid_kinds);
}

}  // namespace

std::vector<int> preflight_side(LinkOptions& o, std::uint32_t qps)
{
    preflight_link(o, *std::max_element(o.sizes.begin(), o.sizes.end()), qps);
    check_iwarp(o);
    check_pkey_index(o);
    check_atomic_cap(o);
    return worker_cpus(o);
}

}  // namespace qps::perf
