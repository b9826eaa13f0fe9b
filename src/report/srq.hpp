// One shared receive queue of this user's holder, as `qp srq create|query|
// modify` report it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/json.hpp"
#include "src/report/qp.hpp"

namespace qps::report {

struct SrqReport {
    std::uint32_t id = 0;  // the holder's number for it (a basic SRQ has none of the device's)
    std::string device;
    std::uint32_t max_wr = 0, max_sge = 0;  // as granted (ibv_query_srq)
    std::uint32_t limit = 0;                // srq_limit: 0 = SRQ_LIMIT_REACHED not armed (or fired)
    std::uint64_t posted = 0;               // receives posted to it (qp post --recv)
    std::uint64_t consumed = 0;             // of them, taken by messages (receive completions the holder reaped)
    std::vector<HeldEventReport> events;    // SRQ_LIMIT_REACHED when it fired, oldest first
    std::vector<std::uint32_t> qps;         // the held QPs that take their receives from it
    std::optional<std::string> xrcd;        // an XRC SRQ: its domain's file
    std::optional<std::uint32_t> srq_num;   // an XRC SRQ: the number senders name (ibv_get_srq_num)
};

// From the holder's reply (held_qps.cpp describe_srq).
SrqReport build_srq_report(const Json& j);

}  // namespace qps::report
