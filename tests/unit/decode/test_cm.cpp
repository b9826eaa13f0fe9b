// rdma_cm's events and the IB CM's reject reasons (src/decode/cm.hpp): the
// values of rdma-core's enum rdma_cm_event_type and the kernel's enum
// ib_cm_rej_reason, in order and without gaps, with a meaning for each and
// what to check for each failure.
#include <doctest/doctest.h>
#include <set>
#include <string>

#include "src/decode/cm.hpp"

using namespace qps;

TEST_CASE("rdma_cm events: 0..19 in order, named without the RDMA_CM_EVENT_ prefix")
{
    const auto events = decode::cm_events();
    REQUIRE(events.size() == 20);
    for (std::size_t i = 0; i < events.size(); ++i) {
        CHECK(events[i].value == static_cast<int>(i));
        CHECK_FALSE(events[i].meaning.empty());
        CHECK(events[i].name.find("RDMA_CM_EVENT_") == std::string_view::npos);
        CHECK(decode::find_cm_event(events[i].value) == &events[i]);
    }
    CHECK(decode::cm_event_name(0) == "ADDR_RESOLVED");
    CHECK(decode::cm_event_name(1) == "ADDR_ERROR");
    CHECK(decode::cm_event_name(7) == "UNREACHABLE");
    CHECK(decode::cm_event_name(8) == "REJECTED");
    CHECK(decode::cm_event_name(15) == "TIMEWAIT_EXIT");
    CHECK(decode::cm_event_name(16) == "ADDRINFO_RESOLVED");
    CHECK(decode::cm_event_name(19) == "INTERNAL");
}

TEST_CASE("rdma_cm events past the table: nullptr and UNKNOWN(0x..) like the other tables")
{
    CHECK(decode::find_cm_event(20) == nullptr);
    CHECK(decode::find_cm_event(-1) == nullptr);
    CHECK(decode::cm_event_name(20) == "UNKNOWN(0x14)");
    CHECK(decode::cm_event_name(255) == "UNKNOWN(0xff)");
    CHECK(decode::cm_event_kernel_words(16).empty());
    CHECK(decode::cm_event_kernel_words(-1).empty());
}

TEST_CASE("rdma_cm events: the failures are the brief's seven and ADDRINFO_ERROR, each with checks")
{
    const std::set<std::string> want{"ADDR_ERROR",     "ROUTE_ERROR",     "CONNECT_ERROR",  "UNREACHABLE",
                                     "REJECTED",       "DEVICE_REMOVAL",  "MULTICAST_ERROR", "ADDRINFO_ERROR"};
    std::set<std::string> failures;
    for (const auto& e : decode::cm_events()) {
        if (e.failure) {
            failures.emplace(e.name);
            CHECK_MESSAGE(!e.checks.empty(), e.name);
            // "; " between items: no item is empty.
            CHECK_MESSAGE(e.checks.find(";;") == std::string_view::npos, e.name);
            CHECK_MESSAGE(e.checks.back() != ';', e.name);
        }
    }
    CHECK(failures == want);
    // The steps of a normal connection have nothing to check.
    for (const char* ok : {"ADDR_RESOLVED", "ROUTE_RESOLVED", "CONNECT_REQUEST", "CONNECT_RESPONSE", "ESTABLISHED",
                           "MULTICAST_JOIN", "TIMEWAIT_EXIT"})
        for (const auto& e : decode::cm_events())
            if (e.name == ok)
                CHECK_MESSAGE(e.checks.empty(), ok);
}

TEST_CASE("rdma_cm events: the status each carries, as cma.c sets it")
{
    // ADDR_ERROR's and UNREACHABLE's status is a negative errno; REJECTED's the reject reason (iWARP: an errno).
    CHECK(decode::find_cm_event(1)->meaning.find("-ETIMEDOUT") != std::string_view::npos);
    CHECK(decode::find_cm_event(1)->meaning.find("-ENODEV") != std::string_view::npos);
    CHECK(decode::find_cm_event(7)->meaning.find("-ETIMEDOUT") != std::string_view::npos);
    const auto rejected = decode::find_cm_event(8)->meaning;
    CHECK(rejected.find("reject reason") != std::string_view::npos);
    CHECK(rejected.find("-ECONNREFUSED") != std::string_view::npos);
    CHECK(rejected.find("iWARP") != std::string_view::npos);
}

TEST_CASE("rdma_cm events: the kernel's rdma_event_msg() words, events 0..15")
{
    CHECK(decode::cm_event_kernel_words(0) == "address resolved");
    CHECK(decode::cm_event_kernel_words(1) == "address error");
    CHECK(decode::cm_event_kernel_words(2) == "route resolved");  // "route resolved " in cma.c
    CHECK(decode::cm_event_kernel_words(8) == "rejected");
    CHECK(decode::cm_event_kernel_words(15) == "timewait exit");
    std::set<std::string_view> seen;
    for (int v = 0; v <= 15; ++v) {
        const auto w = decode::cm_event_kernel_words(v);
        CHECK_FALSE(w.empty());
        CHECK(w.back() != ' ');
        CHECK(seen.insert(w).second);
    }
}

TEST_CASE("IB CM reject reasons: 1..33 in order, then 35; 34 and 0 have no name")
{
    const auto rejects = decode::cm_rejects();
    REQUIRE(rejects.size() == 34);
    for (std::size_t i = 0; i + 1 < rejects.size(); ++i)
        CHECK(rejects[i].value == static_cast<int>(i) + 1);
    CHECK(rejects.back().value == 35);
    for (const auto& r : rejects) {
        CHECK_FALSE(r.meaning.empty());
        CHECK(r.name.find("IB_CM_REJ_") == std::string_view::npos);
        CHECK(decode::find_cm_reject(r.value) == &r);
    }
    CHECK(decode::cm_reject_name(8) == "INVALID_SERVICE_ID");
    CHECK(decode::cm_reject_name(10) == "STALE_CONN");
    CHECK(decode::cm_reject_name(28) == "CONSUMER_DEFINED");
    CHECK(decode::cm_reject_name(35) == "VENDOR_OPTION_NOT_SUPPORTED");
    CHECK(decode::find_cm_reject(34) == nullptr);
    CHECK(decode::find_cm_reject(0) == nullptr);
    CHECK(decode::cm_reject_name(34) == "UNKNOWN(0x22)");
    CHECK(decode::cm_reject_name(-111) == "UNKNOWN(-111)");
}

TEST_CASE("IB CM reject reasons: what 8 and 28 mean on RoCE, and what to check")
{
    CHECK(decode::find_cm_reject(8)->meaning.find("nothing listens") != std::string_view::npos);
    CHECK(decode::find_cm_reject(28)->meaning.find("private data") != std::string_view::npos);
    CHECK(decode::find_cm_reject(28)->meaning.find("rdma_reject()") != std::string_view::npos);
    CHECK_FALSE(decode::cm_reject_checks(8).empty());
    CHECK_FALSE(decode::cm_reject_checks(28).empty());
    CHECK(decode::cm_reject_checks(2).empty());
    CHECK(decode::cm_reject_checks(34).empty());
}
