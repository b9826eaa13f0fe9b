#include "src/net/resolve.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <mutex>
#include <vector>

#include "src/error.hpp"
#include "src/net/interrupt.hpp"
#include "src/net/frame.hpp"

namespace qps::net {

namespace {

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

}  // namespace

AddrInfo resolve(const std::string& host, const std::string& service, const addrinfo& hints,
                 std::chrono::milliseconds timeout, const std::string& what)
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    const std::string name = printable(host);
    const std::string doing = fmt::format("resolving {} \"{}\"", what, name);
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
    int rc = EAI_INPROGRESS;
    for (;;) {
        rc = ::gai_error(&r->cb);
        if (rc != EAI_INPROGRESS)
            break;
        const auto now = Clock::now();
        if (now >= deadline || interrupt_pending()) {
            if (::gai_cancel(&r->cb) != EAI_CANCELED)
                abandon(std::move(r));  // still running: its thread owns the request now
            throw_if_interrupted(doing);
            throw TimeoutError(fmt::format("{} \"{}\": no answer from the resolver within {} ms (its servers: "
                                           "/etc/resolv.conf; a number instead of the name needs none)",
                                           what == "host" ? "resolving" : "resolving " + what, name,
                                           timeout.count()));
        }
        // Woken by the answer, or at most every 100 ms to look at the
        // deadline and the interrupt.
        const auto left = std::min(std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now),
                                   std::chrono::nanoseconds(std::chrono::milliseconds(100)));
        const timespec ts{static_cast<time_t>(left.count() / 1'000'000'000), static_cast<long>(left.count() % 1'000'000'000)};
        const gaicb* wait[1] = {&r->cb};
        ::gai_suspend(wait, 1, &ts);  // EAI_AGAIN (time), EAI_INTR (a signal), EAI_ALLDONE: looked at again
    }
    if (rc == 0)
        return AddrInfo(r->cb.ar_result, &::freeaddrinfo);
    if (rc == EAI_AGAIN)
        throw OperationError(fmt::format("{} \"{}\": {} (the resolver answered that it could not answer now)",
                                         what == "host" ? "resolving" : "resolving " + what, name,
                                         ::gai_strerror(rc)));
    if (rc == EAI_SYSTEM)
        throw SystemError(fmt::format("getaddrinfo(\"{}\")", name), errno);
    throw UsageError(fmt::format("cannot resolve {} \"{}\": {}", what, name, ::gai_strerror(rc)));
}

}  // namespace qps::net
