#include "src/perf/pingpong/post_poll.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <utility>

#include "src/decode/qp.hpp"

namespace qps::perf::pingpong {

namespace {

// "a send completed with RETRY_EXC_ERR: ..." (the status's meaning).
std::string completion_text(const ibv_wc& wc, const char* what)
{
    return fmt::format("{} completed with {}: {}", what, *decode::wc_status(wc.status).name,
                       decode::wc_status_meaning(wc.status));
}

}  // namespace

void wc_failed(const ibv_wc& wc, const char* what)
{
    throw CompletionError(completion_text(wc, what), wc.status == IBV_WC_WR_FLUSH_ERR);
}

void wc_failed_ex(ibv_cq_ex* cq, const char* what)
{
    ibv_wc wc{};
    wc.status = cq->status;
    wc.wr_id = cq->wr_id;
    wc.vendor_err = ibv_wc_read_vendor_err(cq);
    ibv_end_poll(cq);
    wc_failed(wc, what);
}

std::string first_cause(verbs::LinkResources& res)
{
    for (auto [cq, what] : {std::pair{res.send_cq(), "a send"}, std::pair{res.recv_cq(), "a receive"}}) {
        ibv_wc wc[16];
        for (int round = 0; round < 64; ++round) {
            const int n = ibv_poll_cq(cq, 16, wc);
            if (n <= 0)
                break;
            for (int i = 0; i < n; ++i)
                if (wc[i].status != IBV_WC_SUCCESS && wc[i].status != IBV_WC_WR_FLUSH_ERR)
                    return completion_text(wc[i], what);
        }
    }
    return {};
}

void reap_sends(ibv_cq* cq)
{
    ibv_wc wc[4];
    int n;
    while ((n = ibv_poll_cq(cq, 4, wc)) > 0)
        for (int i = 0; i < n; ++i)
            check_wc(wc[i], "a send");
    if (n < 0)
        throw SystemError("ibv_poll_cq", EIO);
}

void reap_sends(ibv_cq_ex* cq)
{
    int rc;
    while ((rc = take_one(cq, "a send")) == 0) {
    }
    if (rc != ENOENT) [[unlikely]]
        throw SystemError("ibv_start_poll", rc);
}

}  // namespace qps::perf::pingpong
