// Picking the GID a connection should use on a port: RoCE v2 with an
// IPv4-mapped address first, then other RoCE v2, then RoCE v1, then IB;
// lowest index within a rank. A client that knows its destination passes
// the GID kinds that reach it (health::gid_kinds_for), most wanted first:
// a GID of one of those kinds goes before any other. The reason is
// returned for the user.
#pragma once

#include <array>
#include <infiniband/verbs.h>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/decode/gid.hpp"

namespace qps::verbs {

struct GidCandidate {
    std::uint32_t index;
    std::array<std::uint8_t, 16> gid;
    int type;  // IBV_GID_TYPE_*
};

struct GidChoice {
    bool found = false;
    std::uint8_t index = 0;
    std::array<std::uint8_t, 16> gid{};
    int active_mtu = 0;  // the port's active MTU (ibv_mtu), 0 if unknown
    std::string why;
};

// Pure ranking (unit-tested): the best of `candidates`, or of the one
// with `wanted` index when given; `prefer` (may be empty) ranks first.
GidChoice choose_among(const std::vector<GidCandidate>& candidates, std::optional<std::uint32_t> wanted,
                       std::span<const decode::GidKind> prefer = {});

// Pure (unit-tested): the index of the candidate that holds `address` (an
// IPv4 address as its IPv4-mapped GID, or an IPv6 address), RoCE v2 before
// v1; nullopt when none does or `address` is not a numeric address.
std::optional<std::uint32_t> index_of_address(const std::vector<GidCandidate>& candidates,
                                              const std::string& address);
// The port's GID table as candidates (entries that cannot be read left out).
std::vector<GidCandidate> read_gid_candidates(ibv_context* ctx, std::uint8_t port);

// Reads the port's GID table of an opened device and chooses.
GidChoice choose_gid(ibv_context* ctx, std::uint8_t port, std::optional<std::uint32_t> wanted,
                     std::span<const decode::GidKind> prefer = {});
// The same for a device by name ("" = the first), which it opens (for a
// command that holds no opened device; not found when it cannot be opened).
GidChoice choose_gid(const std::string& device, std::uint8_t port, std::optional<std::uint32_t> wanted,
                     std::span<const decode::GidKind> prefer = {});

}  // namespace qps::verbs
