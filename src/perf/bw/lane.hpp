// One QP of a bw run (src/perf/bw/loop.cpp): its send and receive work
// requests, built once and posted in chains, and its completion counts.
// Inline for the loop: the per-message path (post, poll, count) is
// always inlined into it.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <vector>

#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/perf/bw/loop.hpp"
#include "src/perf/link_common.hpp"
#include "src/verbs/link_resources.hpp"

namespace qps::perf {

// A count that is never reached: -D runs post until told to stop.
inline constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();

// One QP's send and receive state, its WR chains built once.
class Lane {
public:
    Lane(verbs::LinkResources& res, const BwRun& run) : res_(res), run_(run), srq_(res.srq())
    {
        wr_.resize(run.post_list);
        sge_.resize(run.post_list);
        for (std::uint32_t i = 0; i < run.post_list; ++i) {
            prepare_send_wr(wr_[i], sge_[i], res, run.op, run.size);
            wr_[i].next = i + 1 < run.post_list ? &wr_[i + 1] : nullptr;
        }
        rx_batch_ = std::max<std::uint32_t>(1, std::min<std::uint32_t>(32, run.rx_depth / 4));
        rwr_.resize(rx_batch_);
        rsge_.resize(rx_batch_);
        for (std::uint32_t i = 0; i < rx_batch_; ++i) {
            prepare_recv_wr(rwr_[i], rsge_[i], res);
            rwr_[i].next = i + 1 < rx_batch_ ? &rwr_[i + 1] : nullptr;
        }
        limit_ = run.duration ? no_limit : run.warmup + run.iterations + run.tx_depth;
    }

    // Keeps the send queue full, in chains of post_list.
    [[gnu::always_inline]] void fill()
    {
        while (posted_ < limit_) {
            const std::uint64_t room = run_.tx_depth - (posted_ - completed_);
            const std::uint64_t n = std::min<std::uint64_t>(run_.post_list, limit_ - posted_);
            if (room < n)
                return;
            post(static_cast<std::uint32_t>(n));
        }
    }

    // Send completions: returns the messages newly completed; a failed one
    // sets `failure`.
    [[gnu::always_inline]] std::uint64_t reap_sends(std::string& failure)
    {
        ibv_wc wc[poll_batch];
        const int n = ibv_poll_cq(res_.send_cq(), poll_batch, wc);
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
        const std::uint64_t before = completed_;
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (failure.empty())
                    failure = wc_failure(wc[i], run_.op == Op::read ? "an RDMA read" : run_.op == Op::write ? "an RDMA write" : "a send");
                continue;
            }
            completed_ = std::max(completed_, wc[i].wr_id);
        }
        return completed_ - before;
    }

    // Receive completions: returns how many arrived, reposting in chains.
    std::uint64_t reap_receives(std::string& failure)
    {
        ibv_wc wc[poll_batch];
        const int n = ibv_poll_cq(res_.recv_cq(), poll_batch, wc);
        if (n < 0)
            throw SystemError("ibv_poll_cq", EIO);
        std::uint64_t ok = 0;
        for (int i = 0; i < n; ++i) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (failure.empty() && wc[i].status != IBV_WC_WR_FLUSH_ERR)
                    failure = wc_failure(wc[i], "a receive");
                continue;
            }
            ++ok;
        }
        received_ += ok;
        outstanding_receives_ -= static_cast<std::uint32_t>(n);
        while (run_.rx_depth - outstanding_receives_ >= rx_batch_)
            post_receives(rx_batch_);
        return ok;
    }

    // Tops the receive queue up to rx_depth (end of a run).
    void refill_receives()
    {
        while (outstanding_receives_ < run_.rx_depth)
            post_receives(std::min(rx_batch_, run_.rx_depth - outstanding_receives_));
    }

    // Duration mode: posts nothing more but a last signalled WR if the
    // last one posted was silent, so every WR completes visibly.
    void stop()
    {
        limit_ = posted_ + (last_signalled_ == posted_ ? 0 : 1);
    }

    bool sending_done() const { return posted_ == limit_ && completed_ == limit_; }
    std::uint64_t received() const { return received_; }
    std::uint64_t completed() const { return completed_; }

    // Receives are counted by the caller across runs (see post_initial_receives).
    void set_outstanding_receives(std::uint32_t n) { outstanding_receives_ = n; }

private:
    static constexpr int poll_batch = 16;

    // Out of line, as a failure is rare.
    [[gnu::noinline]] static std::string wc_failure(const ibv_wc& wc, const char* what)
    {
        return fmt::format("{} completed with {}: {}", what, *decode::wc_status(wc.status).name,
                           decode::wc_status_meaning(wc.status));
    }

    [[gnu::always_inline]] void post(std::uint32_t n)
    {
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint64_t m = posted_ + k + 1;  // this WR's number, 1-based
            // Also the last warm-up and the last measured message, so the
            // span's ends fall on exact counts (one QP).
            const bool signalled = m % run_.cq_mod == 0 || m == limit_ || m == run_.warmup ||
                                   m == run_.warmup + run_.iterations;
            wr_[k].wr_id = m;
            wr_[k].send_flags = (signalled ? IBV_SEND_SIGNALED : 0) | (run_.use_inline ? IBV_SEND_INLINE : 0);
            if (signalled)
                last_signalled_ = m;
        }
        wr_[n - 1].next = nullptr;
        ibv_send_wr* bad = nullptr;
        const int rc = ibv_post_send(res_.qp(), wr_.data(), &bad);
        if (n < run_.post_list)
            wr_[n - 1].next = &wr_[n];
        if (rc != 0)
            throw SystemError("ibv_post_send", rc);
        posted_ += n;
    }

    // Into the QP's own receive queue, or (--srq) the shared one: a lane
    // there reposts only what its QP took, so the SRQ never holds more
    // than its depth.
    [[gnu::always_inline]] void post_receives(std::uint32_t n)
    {
        rwr_[n - 1].next = nullptr;
        ibv_recv_wr* bad = nullptr;
        const int rc = srq_ ? ibv_post_srq_recv(srq_, rwr_.data(), &bad) : ibv_post_recv(res_.qp(), rwr_.data(), &bad);
        if (n < rx_batch_)
            rwr_[n - 1].next = &rwr_[n];
        if (rc != 0)
            throw SystemError(srq_ ? "ibv_post_srq_recv" : "ibv_post_recv", rc);
        outstanding_receives_ += n;
    }

    verbs::LinkResources& res_;
    const BwRun& run_;
    ibv_srq* srq_ = nullptr;  // --srq: receives go here
    std::vector<ibv_send_wr> wr_;
    std::vector<ibv_sge> sge_;
    std::vector<ibv_recv_wr> rwr_;
    std::vector<ibv_sge> rsge_;
    std::uint32_t rx_batch_ = 1;
    std::uint64_t posted_ = 0, completed_ = 0, limit_ = 0, last_signalled_ = 0;
    std::uint32_t outstanding_receives_ = 0;
    std::uint64_t received_ = 0;  // receives completed with SUCCESS
};

}  // namespace qps::perf
