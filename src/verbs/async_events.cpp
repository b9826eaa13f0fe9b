#include "src/verbs/async_events.hpp"

#include <cerrno>
#include <fcntl.h>

#include "src/decode/async_event.hpp"
#include "src/error.hpp"

namespace qps::verbs {

namespace {

bool is_port_event(int type)
{
    switch (type) {
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
        return true;
    default:
        return false;
    }
}

}  // namespace

void make_events_nonblocking(ibv_context* ctx)
{
    const int flags = ::fcntl(ctx->async_fd, F_GETFL);
    if (flags < 0 || ::fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw SystemError("fcntl(O_NONBLOCK) on the device's event file", errno);
}

AsyncRead read_async_events(ibv_context* ctx)
{
    AsyncRead out;
    for (;;) {
        ibv_async_event e{};
        if (ibv_get_async_event(ctx, &e) != 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return out;
            out.ended = errno;
            return out;
        }
        AsyncEvent a;
        a.type = static_cast<int>(e.event_type);
        if (is_port_event(a.type))
            a.port = static_cast<std::uint32_t>(e.element.port_num);
        else if (const auto* entry = find_entry(decode::async_event_table, a.type))
            switch (entry->scope) {
            case decode::EventScope::qp: a.qp = e.element.qp; break;
            case decode::EventScope::srq: a.srq = e.element.srq; break;
            default: break;
            }
        ibv_ack_async_event(&e);
        out.events.push_back(a);
    }
}

}  // namespace qps::verbs
