#include "mpi/rank_setup.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unistd.h>

#include "src/decode/device.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/error.hpp"
#include "src/health/preflight.hpp"
#include "src/perf/link_common.hpp"
#include "src/perf/link_checks.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::mpi {

namespace {

std::string host_name()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return "?";
    return buf;
}

}  // namespace

mesh::RankInfo local_setup(const mesh::MeshOptions& o, std::uint32_t rank, int local_rank, const std::string& parse_error,
                           verbs::SharedDevice& opened, const std::function<std::string(const UsageError&)>& spell)
{
    mesh::RankInfo info;
    info.rank = rank;
    info.host = host_name();
    info.port = o.port;
    if (!parse_error.empty()) {
        info.setup_error = parse_error;
        return info;
    }
    try {
        health::PreflightSpec spec;
        spec.device = o.device;
        if (o.per_device && o.device.empty()) {
            const auto devices = verbs::list_devices();
            if (static_cast<std::size_t>(local_rank) >= devices.size())
                throw UsageError(fmt::format("--per-device: node-local rank {} has no device ({} on this node)",
                                             local_rank, devices.size()));
            spec.device = devices[static_cast<std::size_t>(local_rank)].name;
        }
        spec.port = o.port;
        spec.gid_index = o.gid_index;
        spec.with = {.cm = o.tests.cm};  // iWARP: its QPs connect through rdma_cm only
        verbs::LinkSetup setup;
        setup.buffer_bytes = std::max({o.tests.lat_size, o.tests.bw_size, 64u});
        spec.memlock_bytes = verbs::registered_bytes(setup);
        spec.memlock_what = "the test buffers";
        health::Preflight checked = health::preflight(spec);
        info.device = checked.device;
        opened = std::move(checked.opened);
        perf::check_pkey_index(opened, o.port, o.tests.knobs.pkey_index);  // before any network step
        setup.device = info.device;
        setup.opened = opened;
        setup.port = o.port;
        setup.gid_index = o.gid_index;
        verbs::LinkResources probe(setup);
        info.gid_index = probe.gid().index;
        info.gid = decode::format_gid(probe.gid().gid);
        if (o.tests.cm && !decode::connects_only_through(opened->ctx->device->transport_type).empty()) {
            // iWARP: its GIDs are no addresses; rdma_cm reaches the rank at
            // its port's netdev's address.
            info.cm_address = health::netdev_address(
                health::port_netdev(info.device, verbs::snapshot_device(*opened, o.port, verbs::Detail::tables)
                                                     .ports.front()));
            if (info.cm_address.empty())
                throw UsageError(fmt::format("--cm: {} port {} (iWARP) has no IP address on its netdev: rdma_cm has "
                                             "no address to reach this rank at",
                                             info.device, o.port));
            verbs::CmSide{};
        } else if (o.tests.cm) {
            // rdma_cm reaches the rank at the IPv4 address of the GID it chose
            // (the address rdma_cm would pick the same GID for).
            const auto v4 = decode::gid_ipv4(probe.gid().gid);
            if (!v4)
                throw UsageError(fmt::format("--cm: {} port {} has no RoCE v2 GID with an IPv4 address (GID {} is "
                                             "{}): rdma_cm has no address to reach this rank at",
                                             info.device, o.port, info.gid_index, info.gid));
            info.cm_address = *v4;
            // rdma_cm's device file, before any pair: a rank that cannot use
            // it is a set-up failure of its own, not a partner that did not answer.
            verbs::CmSide{};
        }
        const ibv_port_attr attr = probe.port_attr();
        if (const auto rate = decode::link_rate(attr.active_width, attr.active_speed))
            info.rate_gbps = rate->gbps;
    } catch (const UsageError& e) {
        info.setup_error = spell(e);
    } catch (const std::exception& e) {
        info.setup_error = e.what();
    }
    if (info.setup_error.size() > 1000)
        info.setup_error.resize(1000);
    return info;
}

}  // namespace qps::mpi
