// What one side of a two-sided test tells the other so that its QP and
// buffer can be reached: the one endpoint type of qpscope. The verbs side
// fills it (verbs::LinkResources::local()), the exchange carries it
// (net/messages.hpp: the "endpoint" message), and connect() reads the
// peer's; nothing converts it on the way.
#pragma once

#include <array>
#include <cstdint>

namespace qps::net {

struct Endpoint {
    std::uint32_t qpn = 0;  // 24 bits
    std::uint32_t psn = 0;  // 24 bits
    std::uint16_t lid = 0;
    std::array<std::uint8_t, 16> gid{};
    std::uint32_t gid_index = 0;  // 0..255, as ibv_global_route.sgid_index (this side's own choice)
    std::uint32_t rkey = 0;
    std::uint64_t addr = 0;  // the receive half of the buffer
    std::uint64_t size = 0;
    std::uint32_t mtu = 1024;  // path MTU in bytes: 256, 512, 1024, 2048 or 4096
    // RDMA reads and atomics this side's QP accepts in flight as a target
    // (1..255): the peer's initiator depth must not exceed it.
    std::uint32_t max_dest_rd_atomic = 1;
    // --transport xrc: `qpn` is this side's XRC_SEND QP; the peer's XRC_SEND
    // QP connects to `xrc_qpn` (this side's XRC_RECV QP) and names `srqn`
    // (this side's XRC SRQ) in every work request. 0 (and not sent) otherwise.
    std::uint32_t xrc_qpn = 0;  // 24 bits
    std::uint32_t srqn = 0;     // 24 bits
    bool operator==(const Endpoint&) const = default;
};

}  // namespace qps::net
