// Test-only: holds rdma_cm IDs in known states until told to go, for the lab
// cases that read them (tests/lab/cases/30-netlink.sh, 27-doctor.sh).
//
//   cm_pair [--timeout SECONDS] listen ADDR PORT
//   cm_pair [--timeout SECONDS] connect ADDR PORT [N]
//
// listen: binds ADDR:PORT (RDMA_PS_TCP), listens and prints "listening";
// accepts every connection (an RC QP with a small CQ, rdma_create_qp, then
// rdma_accept) and prints "accepted K" once the K-th is ESTABLISHED.
// connect: N connections (default 1) to ADDR:PORT, one after the other,
// each on its own ID with its own QP; prints "connected N" once all are
// ESTABLISHED. A connection the peer tears down while held prints
// "disconnected K" and is kept as it is (its ID in DISCONNECT, its QP
// untouched).
// Both hold everything until stdin reaches EOF or SIGTERM/SIGINT arrives,
// then disconnect, destroy everything and exit 0. Nothing is decided by a
// timer: each wait for an event of a step (address, route, connection,
// an accepted connection's ESTABLISHED) ends at the --timeout deadline
// (default 30 s) only so that nothing hangs. Every failure: one line on
// stderr naming the step and what went wrong, exit 1 (after the same
// cleanup).
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string>
#include <sys/signalfd.h>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
    rdma_cm_id* id = nullptr;
    ibv_pd* pd = nullptr;
    ibv_cq* cq = nullptr;
    bool has_qp = false;
    bool established = false;
    bool disconnected = false;
    Clock::time_point deadline{};  // listen: for its ESTABLISHED
    int number = 0;                // 1, 2, ... in the order they were made
};

struct State {
    rdma_event_channel* channel = nullptr;
    rdma_cm_id* listener = nullptr;
    std::vector<Conn> conns;
    int sig_fd = -1;
    bool stdin_open = true;
    bool stop = false;  // stdin reached EOF, or a signal came
    std::chrono::milliseconds timeout{30000};
    // An event fetched and not yet acknowledged: rdma_destroy_id waits for
    // its acknowledgement (a connect request's, for the listener's), so a
    // failure acknowledges it before the cleanup.
    rdma_cm_event* unacked = nullptr;
};

State st;

// Releases everything that was made, in reverse order. Returns false and
// reports the first step that failed.
bool cleanup(bool report);

[[noreturn]] void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void fail(const char* fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "cm_pair: %s\n", line);
    cleanup(false);
    std::exit(1);
}

// STEP: CALL failed with errno (read first: nothing is built before it).
[[noreturn]] void fail_errno(const char* step, const char* call)
{
    const int e = errno;
    fail("%s: %s: %s", step, call, std::strerror(e));
}
[[noreturn]] void fail_errno(const std::string& step, const char* call) { fail_errno(step.c_str(), call); }

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

bool cleanup(bool report)
{
    bool ok = true;
    if (st.unacked)
        rdma_ack_cm_event(st.unacked);
    st.unacked = nullptr;
    auto check = [&](int rc, const std::string& step) {
        if (rc != 0 && ok) {
            ok = false;
            if (report)
                std::fprintf(stderr, "cm_pair: %s: %s\n", step.c_str(), std::strerror(rc > 0 ? rc : errno));
        }
    };
    for (auto& c : st.conns)
        if (c.established && !c.disconnected && c.id)
            check(rdma_disconnect(c.id), "rdma_disconnect");
    for (auto it = st.conns.rbegin(); it != st.conns.rend(); ++it) {
        if (it->has_qp)
            rdma_destroy_qp(it->id);
        it->has_qp = false;
        if (it->cq)
            check(ibv_destroy_cq(it->cq), "ibv_destroy_cq");
        it->cq = nullptr;
        if (it->pd)
            check(ibv_dealloc_pd(it->pd), "ibv_dealloc_pd");
        it->pd = nullptr;
        if (it->id)
            check(rdma_destroy_id(it->id), "rdma_destroy_id");
        it->id = nullptr;
    }
    st.conns.clear();
    if (st.listener)
        check(rdma_destroy_id(st.listener), "rdma_destroy_id (the listener)");
    st.listener = nullptr;
    if (st.channel)
        rdma_destroy_event_channel(st.channel);
    st.channel = nullptr;
    if (st.sig_fd >= 0)
        close(st.sig_fd);
    st.sig_fd = -1;
    return ok;
}

// Reads what stdin has; EOF (or an error) means "go".
void drain_stdin()
{
    char buf[256];
    const ssize_t n = read(0, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        st.stdin_open = false;
        st.stop = true;
    }
}

void drain_signal()
{
    signalfd_siginfo si;
    if (read(st.sig_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        st.stop = true;
}

// Waits for the channel to have an event, stdin's EOF or a signal, until
// `deadline` (none: for ever). Returns true when the channel has an event.
// On the deadline, returns false with st.stop unset.
bool wait_channel(const Clock::time_point* deadline)
{
    for (;;) {
        pollfd fds[3] = {{st.channel->fd, POLLIN, 0}, {st.sig_fd, POLLIN, 0}, {0, POLLIN, 0}};
        const nfds_t n = st.stdin_open ? 3 : 2;
        int ms = -1;
        if (deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
            if (left.count() <= 0)
                return false;
            ms = static_cast<int>(left.count()) + 1;
        }
        const int rc = poll(fds, n, ms);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            fail_errno("wait", "poll");
        }
        if (fds[1].revents)
            drain_signal();
        if (n == 3 && fds[2].revents)
            drain_stdin();
        if (st.stop)
            return false;
        if (fds[0].revents & (POLLERR | POLLNVAL))
            fail("poll: the event channel reports an error");
        if (fds[0].revents & POLLIN)
            return true;
    }
}

// The next event of the channel, fetched (the channel fd is non-blocking:
// EAGAIN means poll woke us for nothing; wait again).
rdma_cm_event* next_event(const Clock::time_point* deadline, const char* step)
{
    for (;;) {
        if (!wait_channel(deadline)) {
            if (st.stop)
                fail("%s: told to go before it completed", step);
            fail("%s: no event within %lld s", step, static_cast<long long>(st.timeout.count() / 1000));
        }
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(st.channel, &ev) == 0)
            return ev;
        if (errno != EAGAIN && errno != EINTR)
            fail_errno(step, "rdma_get_cm_event");
    }
}

std::string event_text(const rdma_cm_event* ev)
{
    std::string s = rdma_event_str(ev->event);
    if (ev->event == RDMA_CM_EVENT_REJECTED)
        s += " (reject reason " + std::to_string(ev->status) + ")";
    else if (ev->status < 0)
        s += std::string(" (") + std::strerror(-ev->status) + ")";
    else if (ev->status > 0)
        s += " (status " + std::to_string(ev->status) + ")";
    return s;
}

// Waits for `want` on `id` (a client's step). Anything else fails.
void expect_event(rdma_cm_id* id, rdma_cm_event_type want, const std::string& step)
{
    const auto deadline = Clock::now() + st.timeout;
    rdma_cm_event* ev = next_event(&deadline, step.c_str());
    const bool good = ev->id == id && ev->event == want && ev->status == 0;
    const std::string text = event_text(ev);
    if (rdma_ack_cm_event(ev) != 0)
        fail_errno(step, "rdma_ack_cm_event");
    if (!good)
        fail("%s: %s instead of %s", step.c_str(), text.c_str(), rdma_event_str(want));
}

// A PD, a small CQ and an RC QP (rdma_create_qp) on the connection's ID.
void make_qp(Conn& c, const std::string& step)
{
    c.pd = ibv_alloc_pd(c.id->verbs);
    if (!c.pd)
        fail_errno(step, "ibv_alloc_pd");
    c.cq = ibv_create_cq(c.id->verbs, 8, nullptr, nullptr, 0);
    if (!c.cq)
        fail_errno(step, "ibv_create_cq");
    ibv_qp_init_attr attr{};
    attr.send_cq = c.cq;
    attr.recv_cq = c.cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 4;
    attr.cap.max_recv_wr = 4;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    if (rdma_create_qp(c.id, c.pd, &attr) != 0)
        fail_errno(step, "rdma_create_qp");
    c.has_qp = true;
}

rdma_conn_param conn_param()
{
    rdma_conn_param p{};
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.retry_count = 7;
    p.rnr_retry_count = 7;
    return p;
}

sockaddr_storage parse_address(const char* addr, const char* port, bool passive)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    addrinfo* res = nullptr;
    const int rc = getaddrinfo(addr, port, &hints, &res);
    if (rc != 0)
        fail("address %s port %s: %s", addr, port, gai_strerror(rc));
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return ss;
}

Conn* conn_of(rdma_cm_id* id)
{
    for (auto& c : st.conns)
        if (c.id == id)
            return &c;
    return nullptr;
}

// A held connection's event: the peer tore it down (kept as it is), or
// something that only a setup step expects.
void held_event(rdma_cm_event* ev, const char* who)
{
    Conn* c = conn_of(ev->id);
    if (c && ev->event == RDMA_CM_EVENT_DISCONNECTED) {
        c->disconnected = true;
        say("disconnected %d", c->number);
    } else if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
        const std::string text = event_text(ev);
        rdma_ack_cm_event(ev);
        fail("%s: %s", who, text.c_str());
    }
    // TIMEWAIT_EXIT and the like: nothing to do.
    if (rdma_ack_cm_event(ev) != 0)
        fail_errno(who, "rdma_ack_cm_event");
}

// The number of the first accepted connection still waiting for ESTABLISHED.
int pending_number()
{
    for (const auto& c : st.conns)
        if (!c.established)
            return c.number;
    return 0;
}

int run_listen(const char* addr, const char* port)
{
    sockaddr_storage ss = parse_address(addr, port, true);
    const std::string where = std::string("listen ") + addr + ":" + port;
    if (rdma_create_id(st.channel, &st.listener, nullptr, RDMA_PS_TCP) != 0)
        fail_errno("listen", "rdma_create_id");
    if (rdma_bind_addr(st.listener, reinterpret_cast<sockaddr*>(&ss)) != 0)
        fail_errno(where, "rdma_bind_addr");
    if (rdma_listen(st.listener, 8) != 0)
        fail_errno(where, "rdma_listen");
    say("listening");

    int accepted = 0;
    int made = 0;
    while (!st.stop) {
        // The earliest deadline of a connection accepted but not yet
        // ESTABLISHED; none: wait for a request or the word to go.
        const Clock::time_point* deadline = nullptr;
        for (const auto& c : st.conns)
            if (!c.established && (!deadline || c.deadline < *deadline))
                deadline = &c.deadline;
        const Clock::time_point until = deadline ? *deadline : Clock::time_point{};
        if (!wait_channel(deadline ? &until : nullptr)) {
            if (st.stop)
                break;
            fail("accept: connection %d not ESTABLISHED within %lld s", pending_number(),
                 static_cast<long long>(st.timeout.count() / 1000));
        }
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(st.channel, &ev) != 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            fail_errno("accept", "rdma_get_cm_event");
        }
        if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
            st.conns.push_back(Conn{});
            Conn& c = st.conns.back();
            c.id = ev->id;
            c.number = ++made;
            c.deadline = Clock::now() + st.timeout;
            const std::string step = "accept (connection " + std::to_string(c.number) + ")";
            st.unacked = ev;
            make_qp(c, step);
            rdma_conn_param p = conn_param();
            if (rdma_accept(c.id, &p) != 0)
                fail_errno(step, "rdma_accept");
            st.unacked = nullptr;
            if (rdma_ack_cm_event(ev) != 0)
                fail_errno(step, "rdma_ack_cm_event");
            continue;
        }
        Conn* c = conn_of(ev->id);
        if (c && !c->established) {
            const std::string step = "accept (connection " + std::to_string(c->number) + ")";
            const bool good = ev->event == RDMA_CM_EVENT_ESTABLISHED;
            const std::string text = event_text(ev);
            if (rdma_ack_cm_event(ev) != 0)
                fail_errno(step, "rdma_ack_cm_event");
            if (!good)
                fail("%s: %s instead of ESTABLISHED", step.c_str(), text.c_str());
            c->established = true;
            say("accepted %d", ++accepted);
            continue;
        }
        held_event(ev, "listen");
    }
    return cleanup(true) ? 0 : 1;
}

int run_connect(const char* addr, const char* port, int n)
{
    sockaddr_storage ss = parse_address(addr, port, false);
    const std::string peer = std::string(addr) + ":" + port;
    const int resolve_ms = static_cast<int>(std::min<long long>(st.timeout.count(), 5000));
    for (int i = 1; i <= n; ++i) {
        const std::string step = "connect " + peer + " (connection " + std::to_string(i) + ")";
        st.conns.push_back(Conn{});
        Conn& c = st.conns.back();
        c.number = i;
        if (rdma_create_id(st.channel, &c.id, nullptr, RDMA_PS_TCP) != 0)
            fail_errno(step, "rdma_create_id");
        if (rdma_resolve_addr(c.id, nullptr, reinterpret_cast<sockaddr*>(&ss), resolve_ms) != 0)
            fail_errno(step, "rdma_resolve_addr");
        expect_event(c.id, RDMA_CM_EVENT_ADDR_RESOLVED, step + ": resolving the address");
        if (rdma_resolve_route(c.id, resolve_ms) != 0)
            fail_errno(step, "rdma_resolve_route");
        expect_event(c.id, RDMA_CM_EVENT_ROUTE_RESOLVED, step + ": resolving the route");
        make_qp(c, step);
        rdma_conn_param p = conn_param();
        if (rdma_connect(c.id, &p) != 0)
            fail_errno(step, "rdma_connect");
        expect_event(c.id, RDMA_CM_EVENT_ESTABLISHED, step);
        c.established = true;
    }
    say("connected %d", n);
    while (!st.stop) {
        if (!wait_channel(nullptr))
            break;
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(st.channel, &ev) != 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            fail_errno("held", "rdma_get_cm_event");
        }
        held_event(ev, "held");
    }
    return cleanup(true) ? 0 : 1;
}

[[noreturn]] void usage()
{
    std::fprintf(stderr, "usage: cm_pair [--timeout SECONDS] listen ADDR PORT | connect ADDR PORT [N]\n");
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<const char*> args;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            char* end = nullptr;
            const double s = std::strtod(argv[++i], &end);
            if (!end || *end || !(s > 0 && s < 86400))
                usage();
            st.timeout = std::chrono::milliseconds(static_cast<long long>(s * 1000));
        } else {
            args.push_back(argv[i]);
        }
    }
    if (args.size() < 3)
        usage();
    const std::string mode = args[0];
    int n = 1;
    if (mode == "connect" && args.size() == 4) {
        char* end = nullptr;
        const long v = std::strtol(args[3], &end, 10);
        if (!end || *end || v < 1 || v > 64)
            usage();
        n = static_cast<int>(v);
    } else if (!((mode == "listen" || mode == "connect") && args.size() == 3)) {
        usage();
    }

    // SIGTERM and SIGINT arrive on a signalfd, beside stdin and the
    // channel; a closed stdout is an error of a write, not a death.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0)
        fail_errno("setup", "sigprocmask");
    st.sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (st.sig_fd < 0)
        fail_errno("setup", "signalfd");
    std::signal(SIGPIPE, SIG_IGN);

    st.channel = rdma_create_event_channel();
    if (!st.channel)
        fail_errno("setup", "rdma_create_event_channel");
    const int flags = fcntl(st.channel->fd, F_GETFL);
    if (flags < 0 || fcntl(st.channel->fd, F_SETFL, flags | O_NONBLOCK) != 0)
        fail_errno("setup", "fcntl(the event channel, O_NONBLOCK)");

    return mode == "listen" ? run_listen(args[1], args[2]) : run_connect(args[1], args[2], n);
}
