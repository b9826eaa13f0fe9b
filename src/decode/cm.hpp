// rdma_cm's events and the InfiniBand CM's reject reasons: what an event
// means, what to check when it is a failure, and what a reject reason says
// (`explain cm-event`, `explain cm-reject`, the rdma_cm steps of ping-pong
// and bw, `explain --log`).
//
// The events are enum rdma_cm_event_type of rdma-core's librdmacm/rdma_cma.h
// (the kernel's include/rdma/rdma_cm.h has the same values): ADDR_RESOLVED
// (0) .. TIMEWAIT_EXIT (15), then ADDRINFO_RESOLVED, ADDRINFO_ERROR (rdma-core
// v60 and later, rdma_resolve_addrinfo()), USER and INTERNAL
// (rdma_write_cm_event()). What status each event carries is read from the
// kernel's drivers/infiniband/core/cma.c (addr_handler, cma_query_handler,
// cma_ib_handler, cma_iw_handler), addr.c and librdmacm/cma.c.
//
// The reject reasons are enum ib_cm_rej_reason of the kernel's
// include/rdma/ib_cm.h: 1..33, then 35 (VENDOR_OPTION_NOT_SUPPORTED, the
// value librdmacm's rdma_reject_ece() sends); the header names no 34. They
// are the status of RDMA_CM_EVENT_REJECTED on InfiniBand and RoCE. On iWARP
// that status is a negative errno instead (-ECONNREFUSED, -ECONNRESET).
// No user-space header has the enum: the table states the values and is
// checked to be sorted and dense (src/decode/cm.cpp).
//
// (The kernel's states of an rdma_cm ID are src/decode/cm_state.hpp.)
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace qps::decode {

struct CmEventInfo {
    int value;                 // enum rdma_cm_event_type
    std::string_view name;     // "ADDR_ERROR" (without the RDMA_CM_EVENT_ prefix)
    std::string_view meaning;  // what happened, for RoCE/IB/iWARP, and what its status is
    std::string_view checks;   // what to check, most likely first, "; " between items; "" for the normal events
    bool failure;              // the step it ends failed
};

// The entry of an event; nullptr past the table.
const CmEventInfo* find_cm_event(int value);
// "ADDR_ERROR", or "UNKNOWN(0x..)" for a value past the table.
std::string cm_event_name(int value);
// The words the kernel's rdma_event_msg() prints for an event ("address
// error", cma.c's cma_events[]: events 0..15; its "route resolved" ends in a
// space there, trimmed here), as nvme-rdma, iSER and isert log it; "" for an
// event it has no words for.
std::string_view cm_event_kernel_words(int value);

struct CmRejectInfo {
    int value;                 // enum ib_cm_rej_reason
    std::string_view name;     // "INVALID_SERVICE_ID" (without IB_CM_REJ_)
    std::string_view meaning;  // what it means, and for RoCE what usually causes it
};

// The entry of a reason; nullptr for a value the header does not name.
const CmRejectInfo* find_cm_reject(int value);
// "INVALID_SERVICE_ID", or "UNKNOWN(0x..)".
std::string cm_reject_name(int value);
// What to check for the reasons seen in practice ("; " between items), ""
// for the others.
std::string_view cm_reject_checks(int value);

// The tables, in value order.
std::span<const CmEventInfo> cm_events();
std::span<const CmRejectInfo> cm_rejects();

}  // namespace qps::decode
