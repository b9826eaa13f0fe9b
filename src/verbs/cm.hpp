// Connecting a test's QPs through rdma_cm (librdmacm), the way NVMe-oF,
// iSER, SMB Direct, Lustre o2ib and MPI's rdmacm paths do: the client
// resolves address and route and connects, the server listens and accepts;
// rdma_cm picks the device, the GID and the path and moves the QPs to RTS.
//
// Every event on the way is kept (name, status, when) for the report; a
// failure names the step, the event and its status (an errno, or for
// REJECTED the IB CM reject reason and the rejecting side's private data)
// with its meaning from src/decode/cm.hpp, the table `explain cm-event`
// and `explain cm-reject` print.
#pragma once

#include <chrono>
#include <deque>
#include <cstdint>
#include <memory>
#include <optional>
#include <rdma/rdma_cma.h>
#include <string>
#include <vector>

#include "src/verbs/qp_knobs.hpp"

namespace qps::verbs {

struct CmChannelDeleter {
    void operator()(rdma_event_channel* c) const noexcept;
};
struct CmIdDeleter {
    void operator()(rdma_cm_id* id) const noexcept;
};
using CmChannel = std::unique_ptr<rdma_event_channel, CmChannelDeleter>;
using CmId = std::unique_ptr<rdma_cm_id, CmIdDeleter>;

// One event as it came, acknowledged already.
struct CmEventSeen {
    int event = 0;       // enum rdma_cm_event_type
    int status = 0;      // an errno (negative), or REJECTED's reject reason
    double ms = 0;       // since the step began
};

// The status of an event in words: "0", "-110 (ETIMEDOUT)", or for
// REJECTED "8 (INVALID_SERVICE_ID)".
std::string cm_status_text(int event, int status);

// What a client needs to resolve and connect.
struct CmTarget {
    std::string host;                 // the server's address (name or number)
    std::uint16_t port = 0;           // its rdma_cm port (RDMA_PS_TCP)
    std::string bind;                 // source address, "" = chosen by the route
    std::optional<std::uint8_t> tos;  // IP TOS (DSCP << 2 | ECN) through RDMA_OPTION_ID_TOS
    std::optional<std::uint8_t> ack_timeout;  // RDMA_OPTION_ID_ACK_TIMEOUT (code)
    std::chrono::milliseconds resolve_timeout{1500};
    std::chrono::milliseconds name_timeout{10000};  // for the resolver, when host is a name (--timeout)

    // What of the QP knobs rdma_cm takes as options of the ID: the traffic
    // class as the TOS when `tos_given` (else the port's default_roce_tos
    // applies), and an ACK timeout other than qpscope's default.
    void take_knobs(const QpKnobs& k, bool tos_given)
    {
        if (tos_given)
            tos = k.traffic_class;
        if (k.ack_timeout != link_ack_timeout_code)
            ack_timeout = k.ack_timeout;
    }
};

// The first of the private data a qpscope connect request carries, and the
// QP's index among the side's QPs after it (4 bytes, network order).
inline constexpr char cm_magic[4] = {'Q', 'P', 'S', '1'};
inline constexpr std::size_t cm_private_bytes = 8;

class CmSide {
public:
    CmSide();  // its own event channel

    // Client: a new ID, its address and route resolved towards `target`
    // (OperationError naming the event and its meaning on failure). The
    // ID is bound to the device rdma_cm chose: id->verbs.
    CmId resolve(const CmTarget& target);
    // Client: connects `id` (its QP created with rdma_create_qp) and waits
    // for ESTABLISHED; the QP is at RTS after it.
    void connect(rdma_cm_id* id, rdma_conn_param param, std::uint32_t index, std::chrono::milliseconds timeout,
                 const std::string& peer);

    // Server: listens on `bind` ("" = every address) and `port`.
    void listen(const std::string& bind, std::uint16_t port);
    // Server: the next connect request, within `timeout` (TimeoutError
    // naming what the wait means); its private data's index into `index`
    // (a request that is not a qpscope one is rejected and waited past).
    // `watch_fd` (the exchange's socket, or -1): readable or closed while
    // waiting means the client ended before its request came
    // (OperationError).
    CmId next_request(std::chrono::milliseconds timeout, std::uint32_t& index, rdma_conn_param& theirs,
                      int watch_fd = -1);
    // Server: accepts (its QP created) and waits for ESTABLISHED.
    void accept(rdma_cm_id* id, rdma_conn_param param, std::chrono::milliseconds timeout);
    // Server: rejects with `why` as private data (the client names it).
    void reject(rdma_cm_id* id, const std::string& why);

    rdma_cm_id* listener() const { return listener_.get(); }
    // Every event so far, in order.
    const std::vector<CmEventSeen>& trace() const { return trace_; }

private:
    // The next event for `id` (nullptr: any), acknowledged; TimeoutError
    // naming `step` when none comes in time.
    struct Got {
        int event = 0, status = 0;
        rdma_cm_id* id = nullptr;
        rdma_conn_param conn{};
        std::vector<std::uint8_t> private_data;
    };
    Got wait(const std::string& step, rdma_cm_id* id, std::chrono::milliseconds timeout,
             const std::string& waiting_for, int watch_fd = -1);
    [[noreturn]] void fail(const std::string& step, const std::string& towards, const Got& got) const;

    CmChannel channel_;
    CmId listener_;
    std::vector<CmEventSeen> trace_;
    std::vector<Got> pending_;  // events for another ID than the one waited for
};

// The device and port an ID is bound to ("", 0 before it is).
std::string cm_device_name(const rdma_cm_id* id);
// The addresses an ID has: "192.0.2.1:40123".
std::string cm_address_text(const sockaddr* addr);

}  // namespace qps::verbs
