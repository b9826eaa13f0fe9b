#include "src/verbs/cm.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>
#include <netdb.h>
#include <poll.h>

#include "src/decode/cm.hpp"
#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/resolve.hpp"

namespace qps::verbs {

using Clock = std::chrono::steady_clock;

void CmChannelDeleter::operator()(rdma_event_channel* c) const noexcept { rdma_destroy_event_channel(c); }

void CmIdDeleter::operator()(rdma_cm_id* id) const noexcept
{
    if (rdma_destroy_id(id) != 0)
        std::fprintf(stderr, "qpscope: warning: rdma_destroy_id failed: %s\n", std::strerror(errno));
}

namespace {

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The address `host` names, with `port`: the first IPv4 or IPv6 one,
// within `timeout` (net/resolve.hpp: a resolver that does not answer is
// named, not waited for).
sockaddr_storage address_of(const std::string& host, std::uint16_t port, const std::string& what,
                            std::chrono::milliseconds timeout)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const net::AddrInfo found = net::resolve(host, "", hints, timeout, what);
    sockaddr_storage out{};
    std::memcpy(&out, found->ai_addr, found->ai_addrlen);
    if (out.ss_family == AF_INET)
        reinterpret_cast<sockaddr_in*>(&out)->sin_port = htons(port);
    else if (out.ss_family == AF_INET6)
        reinterpret_cast<sockaddr_in6*>(&out)->sin6_port = htons(port);
    return out;
}

std::string event_name(int event) { return decode::cm_event_name(event); }

}  // namespace

std::string cm_status_text(int event, int status)
{
    if (status == 0)
        return "0";
    if (event == RDMA_CM_EVENT_REJECTED && status > 0)
        return fmt::format("{} ({})", status, decode::cm_reject_name(status));
    return fmt::format("{} ({})", status, errno_name(status < 0 ? -status : status));
}

std::string cm_device_name(const rdma_cm_id* id)
{
    return id && id->verbs ? ibv_get_device_name(id->verbs->device) : "";
}

std::string cm_address_text(const sockaddr* addr)
{
    char text[INET6_ADDRSTRLEN] = "";
    if (addr->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
        ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        return fmt::format("{}:{}", text, ntohs(in->sin_port));
    }
    if (addr->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
        ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        return fmt::format("[{}]:{}", text, ntohs(in6->sin6_port));
    }
    return "(no address)";
}

CmSide::CmSide()
{
    channel_.reset(rdma_create_event_channel());
    if (!channel_) {
        int err = errno;
        // librdmacm says ENOENT whatever kept it from the file (it tries
        // other names after the first): the file itself says why.
        if (::access("/dev/infiniband/rdma_cm", R_OK | W_OK) != 0)
            err = errno;
        throw SystemError("rdma_create_event_channel", err,
                          "is /dev/infiniband/rdma_cm there and readable (modprobe rdma_ucm; 'qpscope doctor' checks it)?");
    }
}

CmSide::Got CmSide::wait(const std::string& step, rdma_cm_id* id, std::chrono::milliseconds timeout,
                         const std::string& waiting_for, int watch_fd)
{
    const auto start = Clock::now();
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
        if (!id || it->id == id) {
            Got got = std::move(*it);
            pending_.erase(it);
            return got;
        }
    const auto deadline = start + timeout;
    for (;;) {
        net::throw_if_interrupted(fmt::format("waiting for {}", waiting_for));
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0)
            throw TimeoutError(fmt::format("rdma_cm: {}: no event in {} ms while waiting for {}", step,
                                           timeout.count(), waiting_for));
        pollfd fds[3] = {{channel_->fd, POLLIN, 0}, {net::interrupt_fd(), POLLIN, 0}, {watch_fd, POLLIN, 0}};
        const int n = ::poll(fds, watch_fd >= 0 ? 3 : 2, static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
        if (n < 0 && errno != EINTR)
            throw SystemError("poll(rdma_cm event channel)", errno);
        if (watch_fd >= 0 && n > 0 && fds[2].revents != 0 && !(fds[0].revents & POLLIN))
            throw OperationError(fmt::format("rdma_cm: {}: the peer ended its side (the TCP exchange closed) while "
                                             "this side waited for {}, none having come: its own report says why; "
                                             "if it says its connect request went unanswered, the request was lost "
                                             "on the way here (UDP 4791 dropped on the way or at this host)",
                                             step, waiting_for));
        if (n <= 0 || !(fds[0].revents & POLLIN))
            continue;
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(channel_.get(), &ev) != 0)
            throw SystemError("rdma_get_cm_event", errno);
        Got got;
        got.event = ev->event;
        got.status = ev->status;
        got.id = ev->id;
        got.conn = ev->param.conn;
        if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
            const auto* p = static_cast<const std::uint8_t*>(ev->param.conn.private_data);
            got.private_data.assign(p, p + ev->param.conn.private_data_len);
        }
        got.conn.private_data = nullptr;
        got.conn.private_data_len = 0;
        rdma_ack_cm_event(ev);
        trace_.push_back({got.event, got.status, ms_since(start)});
        if (!id || got.id == id)
            return got;
        pending_.push_back(std::move(got));
    }
}

void CmSide::fail(const std::string& step, const std::string& towards, const Got& got) const
{
    std::string text = fmt::format("rdma_cm: {} {}: {} after {:.0f} ms, status {}", step, towards,
                                   event_name(got.event), trace_.empty() ? 0.0 : trace_.back().ms,
                                   cm_status_text(got.event, got.status));
    if (got.event == RDMA_CM_EVENT_REJECTED && got.status > 0) {
        if (const auto* r = decode::find_cm_reject(got.status))
            text += fmt::format(": {}", r->meaning);
        // A consumer's reject carries its reason as text (qpscope's do;
        // other listeners' may be binary: shown only when printable).
        std::string said;
        for (std::uint8_t c : got.private_data) {
            if (c == 0)
                break;
            said += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
        }
        if (!said.empty())
            text += fmt::format("; the listener said: \"{}\"", said);
    } else if (const auto* e = decode::find_cm_event(got.event)) {
        text += fmt::format(": {}", e->meaning);
    }
    const std::string_view reject_checks =
        got.event == RDMA_CM_EVENT_REJECTED && got.status > 0 ? decode::cm_reject_checks(got.status) : "";
    if (!reject_checks.empty())
        text += fmt::format("; check: {}", reject_checks);
    else if (const auto* e = decode::find_cm_event(got.event); e && !e->checks.empty())
        text += fmt::format("; check: {}", e->checks);
    text += got.event == RDMA_CM_EVENT_REJECTED && got.status > 0
                ? fmt::format(" ('qpscope explain cm-reject {}' for more)", got.status)
                : fmt::format(" ('qpscope explain cm-event {}' for more)", event_name(got.event));
    throw OperationError(text);
}

CmId CmSide::resolve(const CmTarget& target)
{
    rdma_cm_id* raw = nullptr;
    if (rdma_create_id(channel_.get(), &raw, nullptr, RDMA_PS_TCP) != 0)
        throw SystemError("rdma_create_id", errno);
    CmId id(raw);
    if (target.tos) {
        std::uint8_t tos = *target.tos;
        if (rdma_set_option(raw, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof tos) != 0)
            throw SystemError("rdma_set_option(RDMA_OPTION_ID_TOS)", errno);
    }
    if (target.ack_timeout) {
        std::uint8_t code = *target.ack_timeout;
        if (rdma_set_option(raw, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &code, sizeof code) != 0)
            throw SystemError("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)", errno,
                              "this kernel's rdma_cm may not know the option (Linux 5.6 and later do)");
    }
    sockaddr_storage dst = address_of(target.host, target.port, "the server address", target.name_timeout);
    std::optional<sockaddr_storage> src;
    if (!target.bind.empty())
        src = address_of(target.bind, 0, given(Given::bind), target.name_timeout);
    const std::string towards = fmt::format("to {}", cm_address_text(reinterpret_cast<sockaddr*>(&dst)));
    if (rdma_resolve_addr(raw, src ? reinterpret_cast<sockaddr*>(&*src) : nullptr, reinterpret_cast<sockaddr*>(&dst),
                          static_cast<int>(target.resolve_timeout.count())) != 0) {
        const int err = errno;
        throw SystemError(fmt::format("rdma_resolve_addr({}{})", target.host,
                                      target.bind.empty() ? "" : ", " + given(Given::bind) + " " + target.bind),
                          err,
                          err == EADDRNOTAVAIL || err == ENODEV
                              ? "no RDMA device has that source address: 'qpscope ports' lists each device's netdev"
                              : "");
    }
    const auto wait_for = [&](const std::string& step, int wanted) {
        const Got got = wait(step, raw, target.resolve_timeout + std::chrono::milliseconds(1000),
                             fmt::format("{} of {}", step, target.host));
        if (got.event != wanted)
            fail(step, towards, got);
    };
    wait_for("resolving the address", RDMA_CM_EVENT_ADDR_RESOLVED);
    if (rdma_resolve_route(raw, static_cast<int>(target.resolve_timeout.count())) != 0)
        throw SystemError(fmt::format("rdma_resolve_route({})", target.host), errno);
    wait_for("resolving the route", RDMA_CM_EVENT_ROUTE_RESOLVED);
    return id;
}

void CmSide::connect(rdma_cm_id* id, rdma_conn_param param, std::uint32_t index, std::chrono::milliseconds timeout,
                     const std::string& peer)
{
    std::uint8_t data[cm_private_bytes];
    std::memcpy(data, cm_magic, 4);
    const std::uint32_t be = htonl(index);
    std::memcpy(data + 4, &be, 4);
    param.private_data = data;
    param.private_data_len = sizeof data;
    if (rdma_connect(id, &param) != 0)
        throw SystemError(fmt::format("rdma_connect({})", peer), errno);
    const std::string towards = fmt::format("to {}", cm_address_text(rdma_get_peer_addr(id)));
    Got got;
    try {
        got = wait("connecting", id, timeout, fmt::format("the connection to {} (ESTABLISHED)", peer));
    } catch (const TimeoutError& e) {
        throw TimeoutError(fmt::format(
            "{}: the connect request went unanswered (neither accepted nor rejected): UDP 4791 dropped on the way "
            "or at the server, or its qpscope is stopped",
            e.what()));
    }
    if (got.event != RDMA_CM_EVENT_ESTABLISHED)
        fail("connecting", towards, got);
}

void CmSide::listen(const std::string& bind, std::uint16_t port)
{
    rdma_cm_id* raw = nullptr;
    if (rdma_create_id(channel_.get(), &raw, nullptr, RDMA_PS_TCP) != 0)
        throw SystemError("rdma_create_id", errno);
    listener_.reset(raw);
    sockaddr_storage addr{};
    if (bind.empty()) {
        auto* in = reinterpret_cast<sockaddr_in*>(&addr);
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
    } else {
        addr = address_of(bind, port, given(Given::bind), std::chrono::milliseconds(10000));  // numeric: no resolver
    }
    if (rdma_bind_addr(raw, reinterpret_cast<sockaddr*>(&addr)) != 0) {
        const int err = errno;
        throw SystemError(fmt::format("rdma_bind_addr({}:{})", bind.empty() ? "0.0.0.0" : bind, port), err,
                          err == EADDRINUSE ? fmt::format("another rdma_cm listener has port {} ('qpscope cm list' "
                                                          "shows it); give another {}",
                                                          port, given(Given::cm_port))
                          : err == EADDRNOTAVAIL || err == ENODEV
                              ? "no RDMA device has that address: 'qpscope ports' lists each device's netdev"
                              : "");
    }
    if (rdma_listen(raw, 8) != 0)
        throw SystemError(fmt::format("rdma_listen(port {})", port), errno);
}

CmId CmSide::next_request(std::chrono::milliseconds timeout, std::uint32_t& index, rdma_conn_param& theirs,
                          int watch_fd)
{
    // One timeout for all: requests that are not qpscope's (rejected below)
    // do not start it again.
    const auto deadline = Clock::now() + timeout;
    int rejected = 0;
    for (;;) {
        Got got;
        try {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0)
                throw TimeoutError(fmt::format("rdma_cm: accepting: no event in {} ms while waiting for the client's "
                                               "rdma_cm connect request",
                                               timeout.count()));
            got = wait("accepting", nullptr, left, "the client's rdma_cm connect request", watch_fd);
        } catch (const TimeoutError& e) {
            throw TimeoutError(fmt::format("{}: none arrived though the TCP exchange answers{}: UDP 4791 dropped on "
                                           "the way or at this host, or the client failed before connecting",
                                           e.what(),
                                           rejected ? fmt::format(" ({} request{} that were not qpscope's rejected "
                                                                  "meanwhile, within the same {} ms)",
                                                                  rejected, rejected == 1 ? "" : "s", timeout.count())
                                                    : ""));
        }
        if (got.event != RDMA_CM_EVENT_CONNECT_REQUEST)
            fail("accepting", fmt::format("on port {}", ntohs(rdma_get_src_port(listener_.get()))), got);
        CmId id(got.id);
        if (got.private_data.size() < cm_private_bytes || std::memcmp(got.private_data.data(), cm_magic, 4) != 0) {
            reject(id.get(), "qpscope: not a qpscope connect request");
            ++rejected;
            continue;
        }
        std::uint32_t be = 0;
        std::memcpy(&be, got.private_data.data() + 4, 4);
        index = ntohl(be);
        theirs = got.conn;
        return id;
    }
}

void CmSide::accept(rdma_cm_id* id, rdma_conn_param param, std::chrono::milliseconds timeout)
{
    const std::string peer = cm_address_text(rdma_get_peer_addr(id));
    if (rdma_accept(id, &param) != 0)
        throw SystemError(fmt::format("rdma_accept({})", peer), errno);
    const Got got = wait("accepting", id, timeout, fmt::format("the connection from {} (ESTABLISHED)", peer));
    if (got.event != RDMA_CM_EVENT_ESTABLISHED)
        fail("accepting", fmt::format("from {}", peer), got);
}

void CmSide::reject(rdma_cm_id* id, const std::string& why)
{
    // IB CM private data of a REJ: 148 bytes, less rdma_cm's; keep it short.
    const std::string text = why.substr(0, 100);
    rdma_reject(id, text.c_str(), static_cast<std::uint8_t>(text.size() + 1));
}

}  // namespace qps::verbs
