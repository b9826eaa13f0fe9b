#include "src/decode/cm.hpp"

#include <array>

#include "src/decode/decode.hpp"

#if __has_include(<rdma/rdma_cma.h>)
#include <rdma/rdma_cma.h>
#endif

namespace qps::decode {

namespace {

// The status of each event as the kernel and librdmacm set it: a negative
// errno for the errors (librdmacm's own failures: -1, with errno set), the
// reject reason for REJECTED on InfiniBand and RoCE.
constexpr std::array<CmEventInfo, 20> cm_event_entries{{
    {0, "ADDR_RESOLVED",
     "rdma_resolve_addr() finished: the destination IP address maps to a local RDMA device and port, and its "
     "next hop's hardware address is known (ARP/ND on RoCE and iWARP, the IPoIB neighbour on InfiniBand); the "
     "active side goes on with rdma_resolve_route()",
     "", false},
    {1, "ADDR_ERROR",
     "rdma_resolve_addr() failed after it had started; status is a negative errno: -ETIMEDOUT when the next hop "
     "did not answer ARP/ND (or the IPoIB neighbour lookup) within the timeout given, -ENODEV when the source "
     "address the route chose belongs to no RDMA device, -ENETUNREACH or -EHOSTUNREACH when the route went away "
     "while resolving; from librdmacm, status -1 with errno ENODEV: no verbs device of this process matches",
     "does the destination answer ARP/ND from this host (ping it, then ip neigh: REACHABLE, not FAILED)?; "
     "does ip route get <destination> leave through a netdev with an RDMA device on it (rdma link show, "
     "qpscope ports)?; is a given source address configured on that netdev?; status -1: does ibv_devices list "
     "the device (its provider installed)?",
     true},
    {2, "ROUTE_RESOLVED",
     "rdma_resolve_route() finished: the path is known (InfiniBand: a path record from the subnet administrator; "
     "RoCE: built locally from the netdev's GID, MAC, MTU and traffic class; iWARP: nothing to look up); the "
     "active side can call rdma_connect()",
     "", false},
    {3, "ROUTE_ERROR",
     "rdma_resolve_route() failed after it had started; status is a negative errno; on InfiniBand the path "
     "record query to the subnet administrator failed (-ETIMEDOUT: no answer within the timeout given); RoCE "
     "and iWARP build the route locally, so their failures come back from the rdma_resolve_route() call "
     "itself, not as this event",
     "is a subnet manager running and this port ACTIVE with an SM LID (qpscope ports, sminfo)?; are both "
     "ports members of the same partition (P_Key)?; does the SA answer path queries (saquery -p)?; a longer "
     "rdma_resolve_route() timeout on a large or busy fabric",
     true},
    {4, "CONNECT_REQUEST",
     "passive side: a connection request reached a listening ID; the event brings a new rdma_cm_id for the "
     "connection and the requester's private data, and the application answers with rdma_accept() or "
     "rdma_reject()",
     "", false},
    {5, "CONNECT_RESPONSE",
     "active side, for an ID without a QP of rdma_cm's: the peer accepted; the application moves its own QP "
     "to RTR and RTS and completes the connection with rdma_establish()",
     "", false},
    {6, "CONNECT_ERROR",
     "the connection failed after the peer answered: on InfiniBand and RoCE the active side got the accept but "
     "could not bring its QP to RTR or RTS (status that step's error; from librdmacm -1, with errno set), and "
     "the peer is sent a reject (CONSUMER_DEFINED); on iWARP the connection setup ended with an error other "
     "than refused, reset or timed out (status the errno)",
     "the errno and dmesg at that moment (qpscope explain errno N --verb modify_qp); are the responder "
     "resources and initiator depth within both devices' max_qp_rd_atom?; the path MTU and GID index the QP "
     "got; on iWARP: the peer's log",
     true},
    {7, "UNREACHABLE",
     "the peer never answered: on InfiniBand and RoCE the CM resent its connect request (or, on the passive "
     "side, its reply) until its retries ran out, status -ETIMEDOUT; on iWARP the TCP connection setup timed "
     "out, status -ETIMEDOUT; for a UD ID on InfiniBand the status may be the SIDR reply's status instead",
     "is the peer host up with its rdma_cm and ib_cm modules loaded?; RoCE v2 carries the request on UDP port "
     "4791: does a firewall or ACL on the way drop it?; do both ends use the same RoCE version (GID type) and "
     "VLAN?; does the link drop packets (qpscope ports: error counters, pause)?; did the CM resend (cm_tx_retries "
     "under /sys/class/infiniband_cm)?",
     true},
    {8, "REJECTED",
     "the other side refused the connection; on InfiniBand and RoCE, status is the IB CM reject reason "
     "(qpscope explain cm-reject N): 8 INVALID_SERVICE_ID when nothing listens on that port, 28 "
     "CONSUMER_DEFINED when the listening application or its rdma_cm refused, with the application's private "
     "data; on iWARP (IW CM), status is a negative errno instead: -ECONNREFUSED (a refusal, its private data "
     "with it) or -ECONNRESET",
     "the reason: qpscope explain cm-reject <status> (iWARP: qpscope explain errno <status>); does the server "
     "listen on the address and port the client uses (rdma resource show cm_id on the server: LISTEN)?; with "
     "28: the server application's log and the private data it sent",
     true},
    {9, "ESTABLISHED",
     "the connection is up: on the active side once the peer accepted (and rdma_cm moved its QP to RTS), on the "
     "passive side once the requester's ready-to-use message arrived",
     "", false},
    {10, "DISCONNECTED",
     "the connection is torn down: this side or the peer called rdma_disconnect() (a disconnect request and "
     "reply on InfiniBand and RoCE, the TCP connection closing on iWARP); status -ETIMEDOUT when the disconnect "
     "request got no reply; expected at the end of a run, in the middle of one the peer went away",
     "mid-run: the peer application's log (it exited, crashed, or disconnected on an error of its own); the "
     "link between the hosts (qpscope ports: state, error counters); status -ETIMEDOUT: the peer did not "
     "answer the disconnect (gone or unreachable)",
     false},
    {11, "DEVICE_REMOVAL",
     "the RDMA device under this ID is going away (its driver unloaded, the device reset or hot-removed, a "
     "software device such as rxe or siw deleted); the application must destroy its QPs and the ID, the "
     "connection is lost",
     "dmesg at that moment: the device's driver (a firmware reset, a PCI error, a hot-unplug); was a module "
     "unloaded or the device deleted (modprobe -r, rdma link delete)?; is the device back (rdma link show, "
     "qpscope ports)?",
     true},
    {12, "MULTICAST_JOIN",
     "rdma_join_multicast() finished: the ID is a member of the group; the event carries the address handle "
     "data, QPN and Q_Key to send to the group",
     "", false},
    {13, "MULTICAST_ERROR",
     "multicast failed: the join did not complete, or a group already joined is no longer reachable and must "
     "be joined again; status a negative errno",
     "InfiniBand: does the subnet manager answer, and may the group be created or joined (sminfo, saquery "
     "-g)?; is the port ACTIVE?; RoCE: do the switches pass IP multicast for the group (IGMP/MLD snooping)?",
     true},
    {14, "ADDR_CHANGE",
     "the netdev this ID resolved to changed its hardware address, as a bonding failover does; the connection "
     "may now run over a different port than the network stack's",
     "the bond's state (cat /proc/net/bonding/<bond>: which port is active, why it failed over); the link "
     "of the port it left (qpscope ports)",
     false},
    {15, "TIMEWAIT_EXIT",
     "the QP of a closed connection left its time-wait (kept so that packets still in flight drain) and may be "
     "reused",
     "", false},
    {16, "ADDRINFO_RESOLVED",
     "rdma_resolve_addrinfo() finished: the service was resolved (through the InfiniBand subnet administrator "
     "or DNS) and rdma_query_addrinfo() returns the addresses found",
     "", false},
    {17, "ADDRINFO_ERROR",
     "rdma_resolve_addrinfo() failed; status a negative errno (the kernel's service record query: -ENOENT when "
     "no record matches)",
     "is the service registered with the subnet administrator under that name or ID?; does the subnet manager "
     "answer (sminfo)?; for DNS: does the name resolve (getent hosts)?",
     true},
    {18, "USER",
     "written by the application itself with rdma_write_cm_event(), for example to wake a thread waiting on "
     "the event channel; its status and argument are the application's own",
     "", false},
    {19, "INTERNAL",
     "used and consumed inside librdmacm; an application should never receive it",
     "", false},
}};

constexpr bool cm_events_dense()
{
    for (std::size_t i = 0; i < cm_event_entries.size(); ++i)
        if (cm_event_entries[i].value != static_cast<int>(i) || cm_event_entries[i].name.empty() ||
            cm_event_entries[i].meaning.empty())
            return false;
    return true;
}
// A failure says what to check; an event of the normal flow has nothing to check.
constexpr bool cm_failures_have_checks()
{
    for (const auto& e : cm_event_entries)
        if (e.failure && e.checks.empty())
            return false;
    return true;
}
static_assert(cm_events_dense(), "every rdma_cm_event_type, ADDR_RESOLVED (0) .. INTERNAL (19), in order");
static_assert(cm_failures_have_checks(), "every failure event says what to check");

#if __has_include(<rdma/rdma_cma.h>)
// The installed librdmacm names the same values (releases before v60 end at TIMEWAIT_EXIT).
static_assert(cm_event_entries[RDMA_CM_EVENT_ADDR_RESOLVED].name == "ADDR_RESOLVED");
static_assert(cm_event_entries[RDMA_CM_EVENT_ADDR_ERROR].name == "ADDR_ERROR");
static_assert(cm_event_entries[RDMA_CM_EVENT_ROUTE_RESOLVED].name == "ROUTE_RESOLVED");
static_assert(cm_event_entries[RDMA_CM_EVENT_ROUTE_ERROR].name == "ROUTE_ERROR");
static_assert(cm_event_entries[RDMA_CM_EVENT_CONNECT_REQUEST].name == "CONNECT_REQUEST");
static_assert(cm_event_entries[RDMA_CM_EVENT_CONNECT_RESPONSE].name == "CONNECT_RESPONSE");
static_assert(cm_event_entries[RDMA_CM_EVENT_CONNECT_ERROR].name == "CONNECT_ERROR");
static_assert(cm_event_entries[RDMA_CM_EVENT_UNREACHABLE].name == "UNREACHABLE");
static_assert(cm_event_entries[RDMA_CM_EVENT_REJECTED].name == "REJECTED");
static_assert(cm_event_entries[RDMA_CM_EVENT_ESTABLISHED].name == "ESTABLISHED");
static_assert(cm_event_entries[RDMA_CM_EVENT_DISCONNECTED].name == "DISCONNECTED");
static_assert(cm_event_entries[RDMA_CM_EVENT_DEVICE_REMOVAL].name == "DEVICE_REMOVAL");
static_assert(cm_event_entries[RDMA_CM_EVENT_MULTICAST_JOIN].name == "MULTICAST_JOIN");
static_assert(cm_event_entries[RDMA_CM_EVENT_MULTICAST_ERROR].name == "MULTICAST_ERROR");
static_assert(cm_event_entries[RDMA_CM_EVENT_ADDR_CHANGE].name == "ADDR_CHANGE");
static_assert(cm_event_entries[RDMA_CM_EVENT_TIMEWAIT_EXIT].name == "TIMEWAIT_EXIT");
#endif

// rdma_event_msg()'s words (drivers/infiniband/core/cma.c, cma_events[]), by event number.
constexpr std::array<std::string_view, 16> cm_event_msg_words{
    "address resolved", "address error",   "route resolved", "route error",    "connect request",
    "connect response", "connect error",   "unreachable",    "rejected",       "established",
    "disconnected",     "device removal",  "multicast join", "multicast error", "address change",
    "timewait exit"};

// The reasons of include/rdma/ib_cm.h. Where the meaning says what Linux's
// CM (drivers/infiniband/core/cm.c) or rdma_cm (cma.c) does, it was read
// there: ib_cm sends TIMEOUT, INVALID_SERVICE_ID, STALE_CONN, INVALID_GID,
// INVALID_ALT_GID and CONSUMER_DEFINED itself; rdma_reject() sends
// CONSUMER_DEFINED, rdma_reject_ece() VENDOR_OPTION_NOT_SUPPORTED.
constexpr std::array<CmRejectInfo, 34> cm_reject_entries{{
    {1, "NO_QP", "the responder had no QP available for the connection"},
    {2, "NO_EEC", "the responder had no EE context available (Reliable Datagram only)"},
    {3, "NO_RESOURCES", "the responder lacked the resources to take the connection"},
    {4, "TIMEOUT",
     "the side that sent the connect request gave up waiting and withdrew it: Linux's CM sends this when an "
     "ID whose request is still unanswered is destroyed (the additional information carries its node GUID); "
     "seen on the passive side, the client gave up before the accept reached it (a slow server, lost replies)"},
    {5, "UNSUPPORTED", "the responder does not support what the request asks for"},
    {6, "INVALID_COMM_ID", "the message names a communication ID the receiver does not know"},
    {7, "INVALID_COMM_INSTANCE",
     "the communication ID is known but belongs to another instance of the connection (a message left from an "
     "earlier one)"},
    {8, "INVALID_SERVICE_ID",
     "nothing listens for the request's service ID on the device it reached: with rdma_cm the service ID is "
     "the port space and the port, so on RoCE and InfiniBand nothing listens on that rdma_cm port there (the "
     "server not running yet, listening on another port, or bound to an address of another RDMA device)"},
    {9, "INVALID_TRANSPORT_TYPE", "the responder does not support the transport service (QP type) requested"},
    {10, "STALE_CONN",
     "the receiver still holds a connection, or one in time-wait, from the same remote QP: the peer reused a "
     "QP number or repeated a request before the old connection was cleaned up; Linux's CM also sends a "
     "disconnect for the old one, and a retry after the time-wait usually succeeds"},
    {11, "RDC_NOT_EXIST", "the Reliable Datagram domain named does not exist (Reliable Datagram only)"},
    {12, "INVALID_GID",
     "the responder cannot use the primary path's GID: Linux's CM sends this when it cannot build a path back "
     "to the requester from the request (no usable GID or P_Key on the port it arrived on; on RoCE, no route "
     "from that port's netdev to the requester's address, or a RoCE v1 GID across a router); the additional "
     "information carries the responder's GID"},
    {13, "INVALID_LID", "the responder refuses the primary path's LID (InfiniBand)"},
    {14, "INVALID_SL", "the responder refuses the primary path's service level"},
    {15, "INVALID_TRAFFIC_CLASS", "the responder refuses the primary path's traffic class"},
    {16, "INVALID_HOP_LIMIT", "the responder refuses the primary path's hop limit"},
    {17, "INVALID_PACKET_RATE", "the responder refuses the primary path's static rate"},
    {18, "INVALID_ALT_GID",
     "the responder cannot use the alternate path's GID (automatic path migration); Linux's CM sends this "
     "when it cannot build the alternate path"},
    {19, "INVALID_ALT_LID", "the responder refuses the alternate path's LID"},
    {20, "INVALID_ALT_SL", "the responder refuses the alternate path's service level"},
    {21, "INVALID_ALT_TRAFFIC_CLASS", "the responder refuses the alternate path's traffic class"},
    {22, "INVALID_ALT_HOP_LIMIT", "the responder refuses the alternate path's hop limit"},
    {23, "INVALID_ALT_PACKET_RATE", "the responder refuses the alternate path's static rate"},
    {24, "PORT_CM_REDIRECT",
     "the responder's CM is elsewhere: resend the CM messages to the port the additional information names"},
    {25, "PORT_REDIRECT", "connect to another port instead: the additional information names it"},
    {26, "INVALID_MTU", "the responder refuses the path MTU of the request"},
    {27, "INSUFFICIENT_RESP_RESOURCES",
     "the responder cannot provide the responder resources (RDMA reads and atomics in flight) the requester "
     "asked for"},
    {28, "CONSUMER_DEFINED",
     "the other side's user refused: an application's rdma_reject(), its private data saying why (NVMe-oF, "
     "iSER and Lustre put their status there); without private data, the remote rdma_cm refused for it: no "
     "listener matches the address and port (another IP address, another network namespace), the netdev the "
     "request came in on is down or has no route back, or the listener's handler failed; on the passive side: "
     "the client could not move its QP to RTR/RTS after the accept"},
    {29, "INVALID_RNR_RETRY", "the responder refuses the RNR retry count of the request"},
    {30, "DUPLICATE_LOCAL_COMM_ID",
     "the requester's local communication ID is already in use at the responder for another connection"},
    {31, "INVALID_CLASS_VERSION", "the CM message's class version is one the receiver does not support"},
    {32, "INVALID_FLOW_LABEL", "the responder refuses the primary path's flow label"},
    {33, "INVALID_ALT_FLOW_LABEL", "the responder refuses the alternate path's flow label"},
    {35, "VENDOR_OPTION_NOT_SUPPORTED",
     "the responder does not support the enhanced connection establishment (ECE) options the requester "
     "offered; librdmacm's rdma_reject_ece() sends it"},
}};

// Sorted, 1..33 without a gap, then 35: the header names no 34.
constexpr bool cm_rejects_sorted_and_dense()
{
    for (std::size_t i = 0; i + 1 < cm_reject_entries.size(); ++i)
        if (cm_reject_entries[i].value != static_cast<int>(i) + 1 || cm_reject_entries[i].name.empty() ||
            cm_reject_entries[i].meaning.empty())
            return false;
    return cm_reject_entries.back().value == 35 && cm_reject_entries.back().name == "VENDOR_OPTION_NOT_SUPPORTED";
}
static_assert(cm_rejects_sorted_and_dense(), "enum ib_cm_rej_reason: 1 .. 33, then 35");

struct CmRejectChecksEntry {
    int value;
    std::string_view checks;
};
constexpr std::array<CmRejectChecksEntry, 5> cm_reject_check_entries{{
    {4, "is the server slow to accept (its event loop, its log)?; does the link drop the CM's replies "
        "(qpscope ports: error counters)?"},
    {8, "is the server running and listening on that port (rdma resource show cm_id on the server: a LISTEN "
        "entry for the port)?; does the client use the server's port?; is the listener bound to an address "
        "of the device the request reaches?"},
    {10, "retry after the old connection's time-wait; does the peer destroy its IDs and QPs before it "
         "reconnects?"},
    {12, "on RoCE: does the server have a route back to the client's address through the port the request "
         "arrived on (ip route get <client> from <server address>)?; do both ends use RoCE v2 GIDs across a "
         "router?; on InfiniBand: are both ports in the partition (P_Key)?"},
    {28, "the server application's log and the private data it sent; "
         "without private data: does a listener match the address and port the client asks for (rdma "
         "resource show cm_id on the server), in the server's network namespace?; is the server's netdev up "
         "with a route back to the client?"},
}};

}  // namespace

const CmEventInfo* find_cm_event(int value) { return find_entry(cm_event_entries, value); }

std::string cm_event_name(int value)
{
    const auto* e = find_cm_event(value);
    return e ? std::string(e->name) : unknown_name(value);
}

std::string_view cm_event_kernel_words(int value)
{
    if (value < 0 || value >= static_cast<int>(cm_event_msg_words.size()))
        return {};
    return cm_event_msg_words[static_cast<std::size_t>(value)];
}

const CmRejectInfo* find_cm_reject(int value) { return find_entry(cm_reject_entries, value); }

std::string cm_reject_name(int value)
{
    const auto* r = find_cm_reject(value);
    return r ? std::string(r->name) : unknown_name(value);
}

std::string_view cm_reject_checks(int value)
{
    for (const auto& c : cm_reject_check_entries)
        if (c.value == value)
            return c.checks;
    return {};
}

std::span<const CmEventInfo> cm_events() { return cm_event_entries; }
std::span<const CmRejectInfo> cm_rejects() { return cm_reject_entries; }

}  // namespace qps::decode
