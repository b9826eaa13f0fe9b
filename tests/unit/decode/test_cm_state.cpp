// rdma_cm's tables (src/decode/cm_state.hpp): the kernel's enum rdma_cm_state by
// number (drivers/infiniband/core/cma_priv.h), the phase each state means,
// and the port spaces of include/uapi/rdma/rdma_user_cm.h.
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "src/decode/cm_state.hpp"
#include "src/kernel/rdma_netlink.hpp"

using namespace qps;

TEST_CASE("rdma_cm states: the kernel's numbering, iproute2's names, one phase word each")
{
    const std::vector<std::string> names{"IDLE",       "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",
                                         "ROUTE_RESOLVED", "CONNECT", "DISCONNECT",   "ADDR_BOUND",
                                         "LISTEN",     "DEVICE_REMOVAL", "DESTROYING"};
    for (int s = 0; s < static_cast<int>(names.size()); ++s) {
        const auto d = decode::cm_state(s);
        CHECK(d.raw == s);
        CHECK(*d.name == names[static_cast<std::size_t>(s)]);
        CHECK(d.known);
        // qp list's notes (health/stuck.cpp) name states through the same table.
        CHECK(kernel::cm_state_name(static_cast<std::uint8_t>(s)) == names[static_cast<std::size_t>(s)]);
    }
    CHECK(decode::cm_phase(8) == "listening");
    CHECK(decode::cm_phase(7) == "bound");
    for (int s = 1; s <= 4; ++s)
        CHECK(decode::cm_phase(s) == "connecting");
    CHECK(decode::cm_phase(5) == "connected");
    CHECK(decode::cm_phase(6) == "closing");
    CHECK(decode::cm_phase(9) == "closing");
    CHECK(decode::cm_phase(10) == "closing");
    CHECK(decode::cm_phase(0) == "idle");
}

TEST_CASE("rdma_cm states past the table are kept, in hex, and have no phase of the list")
{
    const auto d = decode::cm_state(11);
    CHECK(d.raw == 11);
    CHECK(*d.name == "UNKNOWN(0xb)");
    CHECK_FALSE(d.known);
    CHECK(decode::cm_phase(11) == "unknown");
    CHECK(kernel::cm_state_name(200) == "UNKNOWN(0xc8)");
    CHECK(decode::cm_phase_word_list() ==
          std::vector<std::string>{"listening", "connecting", "connected", "closing", "bound", "idle"});
}

TEST_CASE("rdma_cm port spaces: RDMA_PS_* by name, others kept")
{
    CHECK(*decode::cm_port_space(0x106).name == "TCP");
    CHECK(*decode::cm_port_space(0x111).name == "UDP");
    CHECK(*decode::cm_port_space(0x2).name == "IPOIB");
    CHECK(*decode::cm_port_space(0x13f).name == "IB");
    CHECK(decode::cm_port_space(0x13f).raw == 0x13f);
    const auto odd = decode::cm_port_space(0x107);
    CHECK_FALSE(odd.known);
    CHECK(*odd.name == "UNKNOWN(0x107)");
    const auto huge = decode::cm_port_space(0xffffffffu);
    CHECK_FALSE(huge.known);
    CHECK(huge.raw == 0xffffffffLL);
    CHECK(*huge.name == "UNKNOWN(0xffffffff)");
}
