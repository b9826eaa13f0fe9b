#include "src/perf/link_connect.hpp"

#include <fmt/format.h>

#include "src/decode/cm.hpp"
#include "src/error.hpp"

namespace qps::perf {

namespace {

// Where a client's rdma_cm connects, and how its ID is set.
verbs::CmTarget cm_target(const LinkOptions& o)
{
    verbs::CmTarget target;
    target.host = o.host;
    target.port = o.cm_port;
    target.bind = o.bind;
    target.name_timeout = o.timeout;
    target.take_knobs(o.knobs, o.traffic_class_given);
    return target;
}

}  // namespace

CmStart cm_start(const LinkOptions& o, const LinkSide& checked)
{
    CmStart start;
    start.device = checked.device;
    start.port = checked.port;
    if (!o.cm)
        return start;
    start.side = std::make_unique<verbs::CmSide>();
    std::string chosen;
    if (!o.host.empty()) {
        start.first = start.side->resolve(cm_target(o));
        chosen = verbs::cm_device_name(start.first.get());
        if (o.device_given && chosen != o.device)
            throw UsageError(fmt::format("{0} {1}: rdma_cm routes {2} through {3} ({4}), not {0} {1}: leave {0} "
                                         "out, or give {5} an address of {1}'s netdev",
                                         given(Given::device), o.device, o.host, chosen,
                                         verbs::cm_address_text(rdma_get_local_addr(start.first.get())),
                                         given(Given::bind)));
        start.port = start.first->port_num;
    } else {
        start.side->listen(o.bind, o.cm_port);
        chosen = verbs::cm_device_name(start.side->listener());  // "" on every address
        if (!chosen.empty() && o.device_given && chosen != o.device)
            throw UsageError(fmt::format("{0} {1}: {2} {3} is an address of {4}, not of {0} {1}", given(Given::device),
                                         o.device, given(Given::bind), o.bind, chosen));
    }
    if (!chosen.empty() && chosen != checked.device) {
        start.device = chosen;
        start.device_changed = true;
    }
    return start;
}

namespace {

// rdma_cm: this side's QPs, one at a time with the peer's.
std::vector<std::unique_ptr<verbs::LinkResources>> cm_connected(const LinkOptions& o, const verbs::LinkSetup& setup,
                                                                std::uint32_t n, net::Exchange& ex, CmStart& cm)
{
    std::vector<std::unique_ptr<verbs::LinkResources>> qps;
    verbs::CmSide& side = *cm.side;
    const std::string peer = net::host_of(ex.channel().peer());
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!o.host.empty()) {
            verbs::CmId id = i == 0 && cm.first ? std::move(cm.first) : side.resolve(cm_target(o));
            auto res = std::make_unique<verbs::LinkResources>(setup, id);
            side.connect(res->cm_id(), res->cm_param(), i, o.timeout, fmt::format("{} port {}", peer, o.cm_port));
            res->cm_established();
            qps.push_back(std::move(res));
            continue;
        }
        std::uint32_t index = 0;
        rdma_conn_param theirs{};
        verbs::CmId id = side.next_request(o.timeout, index, theirs, ex.channel().fd());
        rdma_cm_id* raw = id.get();
        const std::string came = verbs::cm_device_name(raw);
        std::unique_ptr<verbs::LinkResources> res;
        try {
            if (index != i)
                throw OperationError(fmt::format("rdma_cm: the connect request for QP {} came while QP {} was "
                                                 "expected",
                                                 index, i));
            if (o.device_given && came != o.device)
                throw OperationError(fmt::format("rdma_cm: the client's connect request came through {}, and this "
                                                 "server was given {} {}: leave {} out, or have the client connect "
                                                 "to an address of {}'s netdev",
                                                 came, given(Given::device), o.device, given(Given::device),
                                                 o.device));
            res = std::make_unique<verbs::LinkResources>(setup, id);
        } catch (const std::exception& e) {
            if (id)  // the request is refused with why (the client names it)
                side.reject(raw, fmt::format("qpscope server: {}", e.what()));
            throw;
        }
        side.accept(res->cm_id(), res->cm_param(&theirs), o.timeout);
        res->cm_established();
        qps.push_back(std::move(res));
    }
    for (auto& res : qps)
        res->cm_peer(ex.endpoints(res->local()));
    return qps;
}

}  // namespace

std::vector<std::unique_ptr<verbs::LinkResources>> connected_qps(const LinkOptions& o, const verbs::LinkSetup& setup,
                                                                 std::uint32_t n, std::uint32_t largest,
                                                                 net::Exchange& ex, CmStart& cm)
{
    if (o.cm)
        return cm_connected(o, setup, n, ex, cm);
    std::vector<std::unique_ptr<verbs::LinkResources>> qps;
    for (std::uint32_t i = 0; i < n; ++i)
        qps.push_back(std::make_unique<verbs::LinkResources>(setup));
    check_ud_fits(o, *qps.front(), largest);
    for (auto& res : qps)
        res->connect(ex.endpoints(res->local()));
    return qps;
}

void fill_cm_events(report::LinkHeader& h, const CmStart& cm)
{
    if (!cm.side)
        return;
    for (const verbs::CmEventSeen& e : cm.side->trace()) {
        h.cm_events.push_back({decode::cm_event_name(e.event), verbs::cm_status_text(e.event, e.status), e.ms});
        if (e.event == RDMA_CM_EVENT_ESTABLISHED)
            break;  // the first QP's
    }
}

}  // namespace qps::perf
