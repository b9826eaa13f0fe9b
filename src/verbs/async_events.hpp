// A device's asynchronous events (ibv_get_async_event), read without
// blocking from its context's event file, each acknowledged at once.
// `qpscope watch` keeps one context per device for them; the port and
// device events (PORT_ACTIVE, PORT_ERR, GID_CHANGE, ...) reach every
// context of the device.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <vector>

namespace qps::verbs {

struct AsyncEvent {
    int type = 0;                         // ibv_event_type
    std::optional<std::uint32_t> port;    // a port event's port
    // The object a QP or SRQ event names (this context's own; compared,
    // never dereferenced after the event was acknowledged).
    const ibv_qp* qp = nullptr;
    const ibv_srq* srq = nullptr;
};

// Makes the context's event file non-blocking (ibv_get_async_event then
// fails with EAGAIN when nothing waits). SystemError on failure.
void make_events_nonblocking(ibv_context* ctx);

// What waits on the context's event file, oldest first, each
// acknowledged; `ended` (its errno) when the file failed after them: the
// device left the host, or its driver died.
struct AsyncRead {
    std::vector<AsyncEvent> events;
    std::optional<int> ended;
};
AsyncRead read_async_events(ibv_context* ctx);

}  // namespace qps::verbs
