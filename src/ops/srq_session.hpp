// `qp srq create|query|modify|destroy`, on the client side: requests to
// this user's holder (src/ops/held_qps.cpp keeps the SRQs), decoded.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/report/srq.hpp"

namespace qps::ops {

struct SrqCreateSpec {
    std::string device;  // "" = the first
    std::uint32_t max_wr = 16, max_sge = 1;
    std::uint32_t limit = 0;  // > 0: SRQ_LIMIT_REACHED armed at this many receives left
    std::string xrcd;         // an XRC SRQ of the domain on this file (absolute); "" a basic SRQ
    std::chrono::seconds idle{600};
};

// Starts the holder when none runs.
report::SrqReport create_srq(const SrqCreateSpec& spec);
report::SrqReport query_srq(std::uint32_t id);
// ibv_modify_srq: the limit (re-arms SRQ_LIMIT_REACHED; 0 disarms) and/or
// the depth (where the provider resizes).
report::SrqReport modify_srq(std::uint32_t id, std::optional<std::uint32_t> limit,
                             std::optional<std::uint32_t> max_wr);

struct SrqDestroyOutcome {
    std::vector<std::uint32_t> destroyed;
    bool holder_exits = false;
};
SrqDestroyOutcome destroy_srqs(std::optional<std::uint32_t> id);  // nullopt: all

// `qp xrcd open FILE`: the XRC domain on a file, held (the holder started
// when none runs); refused by name on a device without XRC.
struct XrcdOutcome {
    std::string device, path;
    std::vector<std::uint32_t> qps, srqs;  // the held xrc-recv QPs and XRC SRQs in it
};
XrcdOutcome open_xrcd(const std::string& device, const std::string& path, std::chrono::seconds idle);

}  // namespace qps::ops
