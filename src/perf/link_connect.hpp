// How a two-sided test's QPs connect to the peer's: by hand over the
// exchange, or through rdma_cm (--cm), started before any network step but
// address resolution. The tests' loops do not care which.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "src/net/exchange.hpp"
#include "src/perf/link_common.hpp"
#include "src/report/link_header.hpp"
#include "src/verbs/cm.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

// rdma_cm's side of a test (--cm), started before any network step but
// address resolution: a client resolves its first QP's address and route
// (ADDR_ERROR and ROUTE_ERROR named here), a server binds and listens.
// -d must be the device rdma_cm chose (UsageError naming both); without
// -d, the side's device becomes it. Null without --cm.
struct CmStart {
    std::unique_ptr<verbs::CmSide> side;
    verbs::CmId first;  // a client's first QP's ID, resolved
    // What rdma_cm decided, from the side `checked`: its device (the one
    // checked, or rdma_cm's: device_changed, check it again) and port.
    std::string device;
    std::uint8_t port = 1;
    bool device_changed = false;
};
CmStart cm_start(const LinkOptions& o, const LinkSide& checked);
// The header's rdma_cm events: the first QP's, up to ESTABLISHED.
void fill_cm_events(report::LinkHeader& h, const CmStart& cm);

// The side's `n` QPs made with `setup` and connected to the peer's `n`:
// by hand (all made, the endpoints swapped, each moved to RTS), or through
// rdma_cm (a client makes and connects each in turn, a server makes each
// on the device its connect request came through and accepts it; then
// the endpoints are swapped for the peers' buffers). `largest`: UD's
// messages must fit the path MTU.
std::vector<std::unique_ptr<verbs::LinkResources>> connected_qps(const LinkOptions& o, const verbs::LinkSetup& setup,
                                                                 std::uint32_t n, std::uint32_t largest,
                                                                 net::Exchange& ex, CmStart& cm);

}  // namespace qps::perf
