#include "src/perf/link_checks.hpp"

#include <endian.h>
#include <fmt/format.h>
#include <infiniband/verbs.h>
#include <vector>

#include "src/decode/device.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"

namespace qps::perf {

void check_iwarp(const LinkOptions& o, const LinkSide& side)
{
    if (o.cm || !side.opened || side.opened->ctx->device->transport_type != IBV_TRANSPORT_IWARP)
        return;
    throw UsageError(fmt::format("{} is an iWARP device: its QPs connect only through rdma_cm (the connection is "
                                 "a TCP stream set up by the kernel); give {} on both sides",
                                 side.opened->name, given(Given::cm)));
}

void check_atomic_cap(const LinkOptions& o, const LinkSide& side)
{
    if (!is_atomic(o.op) || !side.opened)
        return;
    ibv_device_attr da{};
    if (int rc = ibv_query_device(side.opened->ctx.get(), &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", side.opened->name), rc);
    if (da.atomic_cap == IBV_ATOMIC_NONE)
        throw UsageError(
            fmt::format("{} {}: {}", given(Given::op), op_name(o.op), decode::no_atomics_text(side.opened->name)));
}

void check_pkey_index(const LinkOptions& o, const LinkSide& side)
{
    if (side.opened)
        check_pkey_index(side.opened, side.port, o.knobs.pkey_index);
}

void check_pkey_index(const verbs::SharedDevice& device, std::uint8_t port, std::uint16_t index)
{
    if (index == 0 || !device)
        return;
    ibv_context* ctx = device->ctx.get();
    ibv_port_attr pa{};
    if (int rc = ibv_query_port(ctx, port, &pa); rc != 0)
        throw SystemError(fmt::format("ibv_query_port({}, {})", device->name, port), rc);
    std::vector<decode::PkeyEntry> entries;
    for (int i = 0; i < pa.pkey_tbl_len && i < 8; ++i) {
        __be16 pkey = 0;
        if (ibv_query_pkey(ctx, port, i, &pkey) == 0)
            entries.push_back({static_cast<std::uint16_t>(i), be16toh(pkey)});
    }
    if (index < pa.pkey_tbl_len && index >= 8) {
        __be16 pkey = 0;
        if (ibv_query_pkey(ctx, port, index, &pkey) == 0)
            entries.push_back({index, be16toh(pkey)});
    }
    if (auto problem = decode::pkey_index_problem(device->name, port, pa.pkey_tbl_len, entries, index))
        throw UsageError(*problem);
}
}  // namespace qps::perf
