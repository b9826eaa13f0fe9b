#include "src/net/resolve.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <mutex>
#include <poll.h>
#include <sys/single_threaded.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "src/error.hpp"
#include "src/net/frame.hpp"
#include "src/net/interrupt.hpp"

namespace qps::net {

namespace {

using Clock = std::chrono::steady_clock;

// How one resolution ended, whichever way it ran.
struct Answer {
    int rc = EAI_INPROGRESS;  // getaddrinfo's; EAI_INPROGRESS: none within the deadline
    int err = 0;              // errno with EAI_SYSTEM
    AddrInfo list{nullptr, &::freeaddrinfo};
};

[[noreturn]] void no_answer(const std::string& what, const std::string& name, std::chrono::milliseconds timeout)
{
    throw TimeoutError(fmt::format("{} \"{}\": no answer from the resolver within {} ms (its servers: "
                                   "/etc/resolv.conf; a number instead of the name needs none)",
                                   what == "host" ? "resolving" : "resolving " + what, name, timeout.count()));
}

// ---- a name, in a child process (the process stays single-threaded)

// The child's answer on the pipe: rc, errno, then per address its family,
// socket type, protocol, length and bytes, and the canonical name's length
// and bytes (0: none). Ints in the host's order: the pipe does not leave it.
void put_int(std::string& out, int v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

std::string encode(int rc, int err, const addrinfo* list)
{
    std::string out;
    put_int(out, rc);
    put_int(out, err);
    for (const addrinfo* a = rc == 0 ? list : nullptr; a; a = a->ai_next) {
        put_int(out, a->ai_family);
        put_int(out, a->ai_socktype);
        put_int(out, a->ai_protocol);
        put_int(out, static_cast<int>(a->ai_addrlen));
        out.append(reinterpret_cast<const char*>(a->ai_addr), a->ai_addrlen);
        const std::size_t canon = a->ai_canonname ? std::strlen(a->ai_canonname) : 0;
        put_int(out, static_cast<int>(canon));
        out.append(a->ai_canonname ? a->ai_canonname : "", canon);
    }
    return out;
}

// The list decode() builds: our own nodes, freed by free_copied.
void free_copied(addrinfo* a)
{
    while (a) {
        addrinfo* next = a->ai_next;
        delete[] reinterpret_cast<char*>(a->ai_addr);
        delete[] a->ai_canonname;
        delete a;
        a = next;
    }
}

bool get_int(std::string_view& in, int& v)
{
    if (in.size() < sizeof v)
        return false;
    std::memcpy(&v, in.data(), sizeof v);
    in.remove_prefix(sizeof v);
    return true;
}

// False when the bytes are not a whole answer (the child died writing).
bool decode(std::string_view in, Answer& a)
{
    if (!get_int(in, a.rc) || !get_int(in, a.err))
        return false;
    AddrInfo list(nullptr, &free_copied);
    addrinfo** tail = nullptr;
    addrinfo* head = nullptr;
    while (!in.empty()) {
        int family = 0, socktype = 0, protocol = 0, len = 0, canon = 0;
        if (!get_int(in, family) || !get_int(in, socktype) || !get_int(in, protocol) || !get_int(in, len) ||
            len < 0 || static_cast<std::size_t>(len) > sizeof(sockaddr_storage) ||
            in.size() < static_cast<std::size_t>(len))
            return free_copied(head), false;
        auto* node = new addrinfo{};
        *(tail ? tail : &head) = node;
        tail = &node->ai_next;
        node->ai_family = family;
        node->ai_socktype = socktype;
        node->ai_protocol = protocol;
        node->ai_addrlen = static_cast<socklen_t>(len);
        char* addr = new char[sizeof(sockaddr_storage)]();
        std::memcpy(addr, in.data(), static_cast<std::size_t>(len));
        node->ai_addr = reinterpret_cast<sockaddr*>(addr);
        in.remove_prefix(static_cast<std::size_t>(len));
        if (!get_int(in, canon) || canon < 0 || in.size() < static_cast<std::size_t>(canon))
            return free_copied(head), false;
        if (canon > 0) {
            node->ai_canonname = new char[static_cast<std::size_t>(canon) + 1]();
            std::memcpy(node->ai_canonname, in.data(), static_cast<std::size_t>(canon));
            in.remove_prefix(static_cast<std::size_t>(canon));
        }
    }
    a.list = AddrInfo(head, &free_copied);
    return true;
}

// getaddrinfo in a child, its answer read until the deadline or an
// interrupt; the child is killed then. A thread (getaddrinfo_a's) would
// make the process multi-threaded for good, and glibc then brackets every
// later system call (rxe's doorbell write(), once a message) with its
// cancellation switches: README "Instructions per message".
Answer resolve_in_child(const std::string& host, const std::string& service, const addrinfo& hints,
                        Clock::time_point deadline, const std::string& doing)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw SystemError(fmt::format("{}: pipe2", doing), errno);
    const pid_t child = ::fork();
    if (child < 0) {
        const int err = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        throw SystemError(fmt::format("{}: fork", doing), err);
    }
    if (child == 0) {
        ::close(fds[0]);
        ::signal(SIGINT, SIG_DFL);  // the parent's handlers write to its interrupt pipe
        ::signal(SIGTERM, SIG_DFL);
        addrinfo* list = nullptr;
        const int rc = ::getaddrinfo(host.c_str(), service.empty() ? nullptr : service.c_str(), &hints, &list);
        const std::string out = encode(rc, errno, list);
        std::size_t at = 0;
        while (at < out.size()) {
            const ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
            if (n <= 0 && errno != EINTR)
                ::_exit(1);
            at += n > 0 ? static_cast<std::size_t>(n) : 0;
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string got;
    bool ended = false;
    char buf[4096];
    while (!ended) {
        const auto now = Clock::now();
        if (now >= deadline || interrupt_pending())
            break;
        pollfd p[2] = {{fds[0], POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        if (::poll(p, 2, static_cast<int>(std::min<std::int64_t>(left.count(), 100))) < 0 && errno != EINTR)
            break;
        if (p[0].revents == 0)
            continue;
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0)
            got.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            ended = true;
    }
    ::close(fds[0]);
    if (!ended)
        ::kill(child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    Answer a;
    if (ended && !decode(got, a))
        throw OperationError(fmt::format("{}: the resolving child process ended without an answer ({})", doing,
                                         WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                                             : fmt::format("exit {}", WEXITSTATUS(status))));
    return a;
}

// ---- a name in a process that has threads already: getaddrinfo_a

// A request getaddrinfo_a still works on (its thread holds the gaicb and
// the strings) when this side stops waiting and gai_cancel cannot stop it:
// kept here, reachable, until the process ends.
struct Request {
    std::string host, service;
    addrinfo hints{};
    gaicb cb{};
};

void abandon(std::unique_ptr<Request> r)
{
    static std::mutex m;
    static std::vector<std::unique_ptr<Request>> left;  // lives until exit, as the resolver's thread may
    const std::lock_guard lock(m);
    left.push_back(std::move(r));
}

Answer resolve_in_thread(const std::string& host, const std::string& service, const addrinfo& hints,
                         Clock::time_point deadline, const std::string& doing)
{
    auto r = std::make_unique<Request>();
    r->host = host;
    r->service = service;
    r->hints = hints;
    r->cb.ar_name = r->host.c_str();
    r->cb.ar_service = r->service.empty() ? nullptr : r->service.c_str();
    r->cb.ar_request = &r->hints;
    gaicb* list[1] = {&r->cb};
    if (const int rc = ::getaddrinfo_a(GAI_NOWAIT, list, 1, nullptr); rc != 0)
        throw OperationError(fmt::format("{}: getaddrinfo_a: {}", doing, ::gai_strerror(rc)));
    Answer a;
    for (;;) {
        a.rc = ::gai_error(&r->cb);
        if (a.rc != EAI_INPROGRESS)
            break;
        const auto now = Clock::now();
        if (now >= deadline || interrupt_pending()) {
            if (::gai_cancel(&r->cb) != EAI_CANCELED)
                abandon(std::move(r));  // still running: its thread owns the request now
            a.rc = EAI_INPROGRESS;
            return a;
        }
        // Woken by the answer, or at most every 100 ms to look at the
        // deadline and the interrupt.
        const auto left = std::min(std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now),
                                   std::chrono::nanoseconds(std::chrono::milliseconds(100)));
        const timespec ts{static_cast<time_t>(left.count() / 1'000'000'000), static_cast<long>(left.count() % 1'000'000'000)};
        const gaicb* wait[1] = {&r->cb};
        ::gai_suspend(wait, 1, &ts);  // EAI_AGAIN (time), EAI_INTR (a signal), EAI_ALLDONE: looked at again
    }
    a.err = errno;
    if (a.rc == 0)
        a.list = AddrInfo(r->cb.ar_result, &::freeaddrinfo);
    return a;
}

}  // namespace

namespace {

AddrInfo answer_or_throw(Answer a, const std::string& what, const std::string& name, const std::string& doing,
                         std::chrono::milliseconds timeout)
{
    if (a.rc == EAI_INPROGRESS) {
        throw_if_interrupted(doing);
        no_answer(what, name, timeout);
    }
    if (a.rc == 0)
        return std::move(a.list);
    if (a.rc == EAI_AGAIN)
        throw OperationError(fmt::format("{} \"{}\": {} (the resolver answered that it could not answer now)",
                                         what == "host" ? "resolving" : "resolving " + what, name,
                                         ::gai_strerror(a.rc)));
    if (a.rc == EAI_SYSTEM)
        throw SystemError(fmt::format("getaddrinfo(\"{}\")", name), a.err);
    throw UsageError(fmt::format("cannot resolve {} \"{}\": {}", what, name, ::gai_strerror(a.rc)));
}

}  // namespace

AddrInfo resolve(const std::string& host, const std::string& service, const addrinfo& hints,
                 std::chrono::milliseconds timeout, const std::string& what)
{
    const auto deadline = Clock::now() + timeout;
    const std::string name = printable(host);
    const std::string doing = fmt::format("resolving {} \"{}\"", what, name);
    Answer a;
    // A number is answered at once, without the resolver: no child, no
    // thread.
    addrinfo numeric = hints;
    numeric.ai_flags |= AI_NUMERICHOST;
    addrinfo* list = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), service.empty() ? nullptr : service.c_str(), &numeric, &list);
    if (rc != EAI_NONAME) {
        a.rc = rc;
        a.err = errno;
        if (rc == 0)
            a.list = AddrInfo(list, &::freeaddrinfo);
    } else if (::__libc_single_threaded) {
        a = resolve_in_child(host, service, hints, deadline, doing);
    } else {
        a = resolve_in_thread(host, service, hints, deadline, doing);
    }
    return answer_or_throw(std::move(a), what, name, doing, timeout);
}

AddrInfo resolve_in_child_process(const std::string& host, const std::string& service, const addrinfo& hints,
                                  std::chrono::milliseconds timeout)
{
    const std::string doing = fmt::format("resolving host \"{}\"", printable(host));
    return answer_or_throw(resolve_in_child(host, service, hints, Clock::now() + timeout, doing), "host",
                           printable(host), doing, timeout);
}

}  // namespace qps::net
