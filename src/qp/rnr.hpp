// Why a send ended in RNR_RETRY_EXC_ERR when the receiver is known (both
// QPs in this user's holder): the queue it takes its receives from (its
// own receive queue, or a shared receive queue and that SRQ's depth), how
// many receives were posted and taken, and the sender's RNR retries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace qps::qp {

struct RnrFacts {
    std::uint32_t sender_qpn = 0, receiver_qpn = 0;
    unsigned rnr_retry = 0;      // the sender's (7: for ever)
    unsigned min_rnr_timer = 0;  // the receiver's code (decode::rnr_timer_table)
    // The receiver's SRQ, when it has one: its holder id and depth.
    struct Srq {
        std::uint32_t id = 0;
        std::uint32_t max_wr = 0;
    };
    std::optional<Srq> srq;
    std::uint64_t receives_posted = 0;  // into the SRQ (or the QP's own queue), all told
    std::uint64_t receives_taken = 0;   // of them, completed by a message
    std::uint32_t sends = 0;            // sends in this post
    std::uint32_t sends_ok = 0;         // of them, completed with SUCCESS before the failure
};

// One paragraph: which queue ran dry, at what depth, what the receiver and
// the sender did, and what to change.
std::string rnr_cause(const RnrFacts& f);

}  // namespace qps::qp
