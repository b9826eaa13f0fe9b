// Name resolution with a bound: a number without the resolver, a name in a
// child process whose list comes back whole (the child's wire: every
// address, its family, type and protocol, and the canonical name).
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netdb.h>
#include <set>
#include <string>
#include <tuple>

#include "src/error.hpp"
#include "src/net/resolve.hpp"

using namespace qps::net;
using namespace std::chrono_literals;

namespace {

using Entry = std::tuple<int, int, int, std::string, std::string>;  // family, type, protocol, address, canonical

std::set<Entry> entries(const addrinfo* list)
{
    std::set<Entry> out;
    for (const addrinfo* a = list; a; a = a->ai_next) {
        char text[INET6_ADDRSTRLEN] = "";
        if (a->ai_family == AF_INET)
            ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr, text, sizeof text);
        else if (a->ai_family == AF_INET6)
            ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr, text, sizeof text);
        const std::string port =
            a->ai_family == AF_INET ? std::to_string(ntohs(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_port))
                                    : std::to_string(ntohs(reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_port));
        out.emplace(a->ai_family, a->ai_socktype, a->ai_protocol, std::string(text) + " port " + port,
                    a->ai_canonname ? a->ai_canonname : "");
    }
    return out;
}

}  // namespace

TEST_CASE("resolve: a name through the child process gives getaddrinfo's own list, canonical name included")
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_flags = AI_CANONNAME;
    addrinfo* direct = nullptr;
    REQUIRE(::getaddrinfo("localhost", "18615", &hints, &direct) == 0);  // /etc/hosts: no resolver asked
    const std::set<Entry> want = entries(direct);
    ::freeaddrinfo(direct);
    const AddrInfo got = resolve_in_child_process("localhost", "18615", hints, 10s);
    CHECK(entries(got.get()) == want);
    CHECK(want.size() >= 1);
}

TEST_CASE("resolve: a number is answered without the resolver; an unknown service is named")
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const AddrInfo v4 = resolve("192.0.2.1", "7", hints, 1ms);  // 1 ms: no resolver could answer in time
    REQUIRE(v4);
    CHECK(entries(v4.get()) == std::set<Entry>{{AF_INET, SOCK_STREAM, IPPROTO_TCP, "192.0.2.1 port 7", ""}});
    const AddrInfo v6 = resolve("fe80::1", "", hints, 1ms);
    REQUIRE(v6);
    CHECK(v6->ai_family == AF_INET6);
    CHECK_THROWS_AS(resolve_in_child_process("localhost", "no-such-service-qpscope", hints, 10s), qps::UsageError);
}
