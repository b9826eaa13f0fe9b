// (Named cm_state: src/decode/cm.hpp is rdma_cm's event and reject tables, explain's cm-event and cm-reject.)
// The RDMA connection manager (rdma_cm) as the kernel reports its IDs over
// RDMA netlink (`rdma resource show cm_id`, `qpscope cm list`): the state of
// an ID, one word for what that state means for the connection, and the
// port space.
//
// The states are the kernel's enum rdma_cm_state
// (drivers/infiniband/core/cma_priv.h). That header is private to the
// kernel: no user-space header has the enum to check against, so the table
// states the values and is checked to run 0..10 without gaps. iproute2
// (rdma/res-cmid.c) names them the same way.
// The port spaces are enum rdma_ucm_port_space
// (include/uapi/rdma/rdma_user_cm.h; librdmacm's enum rdma_port_space in
// <rdma/rdma_cma.h> has the same values).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/decode/decode.hpp"

namespace qps::decode {

// What an ID in a state is doing, in one word: `cm list` shows it and
// filters by it (--state).
inline constexpr std::array<std::string_view, 6> cm_phase_words{
    "listening", "connecting", "connected", "closing", "bound", "idle"};

struct CmStateEntry {
    int value;
    std::string_view name;   // the kernel's name without RDMA_CM_, as iproute2 prints it
    std::string_view phase;  // one of cm_phase_words
};
// RDMA_CM_CONNECT covers the whole life of a connection on the kernel's side:
// from the connect request (active side) or the request received (passive
// side) until a disconnect; the kernel keeps no state of its own for
// "established".
inline constexpr std::array<CmStateEntry, 11> cm_state_table{{
    {0, "IDLE", "idle"},                   // RDMA_CM_IDLE: created, no address yet
    {1, "ADDR_QUERY", "connecting"},       // RDMA_CM_ADDR_QUERY: rdma_resolve_addr() under way
    {2, "ADDR_RESOLVED", "connecting"},    // RDMA_CM_ADDR_RESOLVED
    {3, "ROUTE_QUERY", "connecting"},      // RDMA_CM_ROUTE_QUERY: rdma_resolve_route() under way
    {4, "ROUTE_RESOLVED", "connecting"},   // RDMA_CM_ROUTE_RESOLVED: ready for rdma_connect()
    {5, "CONNECT", "connected"},           // RDMA_CM_CONNECT: connecting or connected
    {6, "DISCONNECT", "closing"},          // RDMA_CM_DISCONNECT: torn down (by either side), not destroyed yet
    {7, "ADDR_BOUND", "bound"},            // RDMA_CM_ADDR_BOUND: rdma_bind_addr(), not listening
    {8, "LISTEN", "listening"},            // RDMA_CM_LISTEN: rdma_listen()
    {9, "DEVICE_REMOVAL", "closing"},      // RDMA_CM_DEVICE_REMOVAL: its device is going away
    {10, "DESTROYING", "closing"},         // RDMA_CM_DESTROYING: rdma_destroy_id() under way
}};

namespace detail {
constexpr bool cm_states_dense()
{
    for (std::size_t i = 0; i < cm_state_table.size(); ++i)
        if (cm_state_table[i].value != static_cast<int>(i))
            return false;
    return true;
}
constexpr bool cm_phases_known()
{
    for (const auto& e : cm_state_table) {
        bool found = false;
        for (const auto w : cm_phase_words)
            found = found || w == e.phase;
        if (!found)
            return false;
    }
    return true;
}
}  // namespace detail
static_assert(detail::cm_states_dense(), "every rdma_cm_state, RDMA_CM_IDLE (0) .. RDMA_CM_DESTROYING (10), in order");
static_assert(detail::cm_phases_known(), "every state's phase is one of cm_phase_words");

// enum rdma_ucm_port_space: the kind of "port" of an rdma_cm address, named
// as the constants are (RDMA_PS_TCP: "TCP").
inline constexpr std::array<EnumEntry<int>, 4> cm_port_space_table{{
    {0x0002, "IPOIB"},  // RDMA_PS_IPOIB
    {0x0106, "TCP"},    // RDMA_PS_TCP: reliable connections (RC), the common one
    {0x0111, "UDP"},    // RDMA_PS_UDP: unreliable datagrams (UD)
    {0x013f, "IB"},     // RDMA_PS_IB: any QP type, native InfiniBand service IDs
}};
static_assert(values_unique<int>(cm_port_space_table));

// {raw, name} of a state; an unknown one as UNKNOWN(0x..), known false.
Decoded cm_state(int raw);
// The phase word of a state; "unknown" for a state past the table.
std::string_view cm_phase(int raw);
// The words `--state` accepts, in the order above.
std::vector<std::string> cm_phase_word_list();
Decoded cm_port_space(std::uint32_t raw);

}  // namespace qps::decode
