// Asynchronous events (ibv_get_async_event): every ibv_event_type with
// what it is about, how grave it is and what it means. `qpscope watch`
// reports them; the port and device events reach every context of the
// device, the others only the process that owns the object.
#pragma once

#include <array>
#include <infiniband/verbs.h>
#include <string_view>

#include "src/decode/decode.hpp"

namespace qps::decode {

// What an event is about: which of ibv_async_event's union members it fills.
enum class EventScope { port, device, qp, cq, srq, wq };

// How grave: info (a change that is normal), warning (look at it), error
// (something stopped working), critical (the device is gone or unusable).
enum class Severity { info, warning, error, critical };

constexpr std::string_view scope_name(EventScope scope)
{
    switch (scope) {
    case EventScope::port: return "port";
    case EventScope::device: return "device";
    case EventScope::qp: return "qp";
    case EventScope::cq: return "cq";
    case EventScope::srq: return "srq";
    case EventScope::wq: return "wq";
    }
    return "unknown";
}

constexpr std::string_view severity_name(Severity severity)
{
    switch (severity) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
    case Severity::critical: return "critical";
    }
    return "unknown";
}

struct AsyncEventEntry {
    int value;
    std::string_view name;  // the IBV_EVENT_ suffix, as ibv_asyncwatch prints it
    EventScope scope;
    Severity severity;
    std::string_view meaning;
};

inline constexpr std::array<AsyncEventEntry, 20> async_event_table{{
    {IBV_EVENT_CQ_ERR, "CQ_ERR", EventScope::cq, Severity::error,
     "a completion queue overran (more completions than its depth) or its memory failed: the CQ and every QP on it "
     "are unusable; give the CQ more entries, or poll it faster"},
    {IBV_EVENT_QP_FATAL, "QP_FATAL", EventScope::qp, Severity::error,
     "the QP met an error the device could not report as a completion (a malformed WQE, a broken queue): it moved "
     "to ERR; destroy it and create a new one"},
    {IBV_EVENT_QP_REQ_ERR, "QP_REQ_ERR", EventScope::qp, Severity::error,
     "the responder saw an invalid request (an opcode the QP may not receive, a packet out of sequence): the QP "
     "moved to ERR; check that both sides agree on the transport and the operations"},
    {IBV_EVENT_QP_ACCESS_ERR, "QP_ACCESS_ERR", EventScope::qp, Severity::error,
     "an incoming RDMA or atomic request broke the QP's access rules (a wrong rkey, an address outside the MR, a "
     "right the QP or MR does not grant): the QP moved to ERR"},
    {IBV_EVENT_COMM_EST, "COMM_EST", EventScope::qp, Severity::info,
     "the first packet arrived on a QP in RTR: communication is established (rdma_cm uses it to move to RTS)"},
    {IBV_EVENT_SQ_DRAINED, "SQ_DRAINED", EventScope::qp, Severity::info,
     "a QP in SQD has no outstanding send request left: its attributes may now be changed"},
    {IBV_EVENT_PATH_MIG, "PATH_MIG", EventScope::qp, Severity::warning,
     "the QP migrated to its alternate path (automatic path migration): the primary path failed"},
    {IBV_EVENT_PATH_MIG_ERR, "PATH_MIG_ERR", EventScope::qp, Severity::error,
     "path migration failed: the alternate path does not work either"},
    {IBV_EVENT_DEVICE_FATAL, "DEVICE_FATAL", EventScope::device, Severity::critical,
     "the device hit a fatal error (firmware, a reset, a removed driver): every object on it is lost; the "
     "applications must close the device and open it again"},
    {IBV_EVENT_PORT_ACTIVE, "PORT_ACTIVE", EventScope::port, Severity::info,
     "the port came up (ACTIVE): new connections may go through it"},
    {IBV_EVENT_PORT_ERR, "PORT_ERR", EventScope::port, Severity::error,
     "the port left ACTIVE (link down, cable, switch, or the netdev set down): connected QPs through it will time "
     "out and move to ERR"},
    {IBV_EVENT_LID_CHANGE, "LID_CHANGE", EventScope::port, Severity::warning,
     "the subnet manager gave the port a new LID: address handles and connections made with the old one fail"},
    {IBV_EVENT_PKEY_CHANGE, "PKEY_CHANGE", EventScope::port, Severity::warning,
     "the port's P_Key table changed: a QP whose P_Key index now holds another partition cannot reach its peer"},
    {IBV_EVENT_SM_CHANGE, "SM_CHANGE", EventScope::port, Severity::warning,
     "the subnet manager of the port's subnet changed: path records may change, re-query them"},
    {IBV_EVENT_SRQ_ERR, "SRQ_ERR", EventScope::srq, Severity::error,
     "a shared receive queue met an error: it and every QP on it are unusable"},
    {IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED", EventScope::srq, Severity::warning,
     "a shared receive queue fell below its armed limit: post more receives, or senders will get RNR NAKs"},
    {IBV_EVENT_QP_LAST_WQE_REACHED, "QP_LAST_WQE_REACHED", EventScope::qp, Severity::info,
     "a QP on a shared receive queue in ERR will consume no more receives from it: it may be destroyed"},
    {IBV_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", EventScope::port, Severity::warning,
     "the subnet manager asked the port's clients to register again (multicast groups, service records): an SM "
     "restart or failover"},
    {IBV_EVENT_GID_CHANGE, "GID_CHANGE", EventScope::port, Severity::warning,
     "the port's GID table changed (an address added or removed on its netdev, a VLAN): a GID index cached before "
     "may now name another GID or none"},
    {IBV_EVENT_WQ_FATAL, "WQ_FATAL", EventScope::wq, Severity::error,
     "a work queue (RSS receive queue) met a fatal error: it moved to ERR"},
}};
static_assert(async_event_table.size() == IBV_EVENT_WQ_FATAL + 1, "every ibv_event_type");

// An event type the table does not know (a newer kernel's) has no entry:
// find_entry(async_event_table, value) is nullptr, and it is reported by number.

}  // namespace qps::decode
