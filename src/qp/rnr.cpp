#include "src/qp/rnr.hpp"

#include <fmt/format.h>

#include "src/decode/qp.hpp"

namespace qps::qp {

std::string rnr_cause(const RnrFacts& f)
{
    const double timer_ms =
        f.min_rnr_timer < decode::rnr_timer_table.size() ? decode::rnr_timer_table[f.min_rnr_timer].ms : 0;
    const std::uint64_t left = f.receives_posted > f.receives_taken ? f.receives_posted - f.receives_taken : 0;
    const std::string queue = f.srq ? fmt::format("SRQ {} of depth {} (max_wr)", f.srq->id, f.srq->max_wr)
                                    : "its own receive queue";
    const std::string tried = f.rnr_retry >= decode::max_retry
                                  ? "rnr-retry 7 (for ever)"
                                  : fmt::format("rnr-retry {} (of at most 7; 7 retries for ever)", f.rnr_retry);
    std::string text = fmt::format(
        "the receiver QP {:#x} takes its receives from {}: {} posted, {} taken, {} left when send {} of {} "
        "arrived; it answered with RNR NAKs (its min-rnr-timer {} = {} ms between tries) and QP {:#x} gave up "
        "after {}.",
        f.receiver_qpn, queue, f.receives_posted, f.receives_taken, left, f.sends_ok + 1, f.sends, f.min_rnr_timer,
        timer_ms, f.sender_qpn, tried);
    if (f.srq) {
        const bool deeper = f.sends > f.srq->max_wr;
        text += fmt::format(
            " The SRQ ran dry: {} sends in flight against {} receives it can hold{}. Post receives as fast as "
            "messages take them (qpscope qp post --recv), {}or raise the sender's --rnr-retry (7 waits for ever).",
            f.sends, f.srq->max_wr, deeper ? ", more than its depth" : "",
            deeper ? "give the SRQ at least the sends in flight of every QP it serves (qp srq create --max-wr), "
                   : "");
    } else {
        text += " The receive queue ran dry: post receives as fast as messages take them (qpscope qp post "
                "--recv), or raise the sender's --rnr-retry (7 waits for ever).";
    }
    return text;
}

}  // namespace qps::qp
