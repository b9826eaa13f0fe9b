// rdma_cm's events as qpscope reports them (src/verbs/cm.hpp): a status in
// words (an errno's name, REJECTED's reject reason by name) and the trace
// of a connection, from the decode tables `explain cm-event` reads.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <string>

#include "src/verbs/cm.hpp"

using namespace qps::verbs;

TEST_CASE("a CM event's status in words: 0, a negative errno by name, a reject reason by name")
{
    CHECK(cm_status_text(RDMA_CM_EVENT_ESTABLISHED, 0) == "0");
    CHECK(cm_status_text(RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT) == "-110 (ETIMEDOUT)");
    CHECK(cm_status_text(RDMA_CM_EVENT_UNREACHABLE, -ENETUNREACH) == "-101 (ENETUNREACH)");
    CHECK(cm_status_text(RDMA_CM_EVENT_REJECTED, 8) == "8 (INVALID_SERVICE_ID)");
    CHECK(cm_status_text(RDMA_CM_EVENT_REJECTED, 28) == "28 (CONSUMER_DEFINED)");
    // iWARP's rejects carry an errno instead of a reason.
    CHECK(cm_status_text(RDMA_CM_EVENT_REJECTED, -ECONNREFUSED) == "-111 (ECONNREFUSED)");
}

TEST_CASE("an rdma_cm address as text: IPv4 and IPv6 with their ports")
{
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    v4.sin_port = htons(18616);
    inet_pton(AF_INET, "192.0.2.1", &v4.sin_addr);
    CHECK(cm_address_text(reinterpret_cast<sockaddr*>(&v4)) == "192.0.2.1:18616");
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(4420);
    inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr);
    CHECK(cm_address_text(reinterpret_cast<sockaddr*>(&v6)) == "[fe80::1]:4420");
    sockaddr none{};
    CHECK(cm_address_text(&none) == "(no address)");
}
