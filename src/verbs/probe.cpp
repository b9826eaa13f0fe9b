#include "src/verbs/probe.hpp"

#include <cerrno>
#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "src/error.hpp"
#include "src/verbs/handles.hpp"
#include "src/verbs/objects.hpp"

namespace qps::verbs {

namespace {
constexpr std::uint32_t inline_search_limit = 64 * 1024;

// Creates an RC QP asking for `inline_size`; returns what was granted, or
// nullopt when the device refuses.
std::optional<std::uint32_t> try_inline(ibv_pd* pd, ibv_cq* cq, std::uint32_t inline_size)
{
    QpSpec spec;
    spec.send_cq = cq;
    spec.recv_cq = cq;
    spec.cap.max_inline_data = inline_size;
    ibv_qp_cap granted{};
    if (!create_qp(pd, spec, &granted))
        return std::nullopt;
    return granted.max_inline_data;
}
}  // namespace

ProbeResult probe_max_inline(ibv_context* ctx)
{
    ProbeResult r;
    ProtectionDomain pd(ibv_alloc_pd(ctx));
    if (!pd) {
        r.error = fmt::format("ibv_alloc_pd: {}", errno_name(errno));
        return r;
    }
    CompletionQueue cq(ibv_create_cq(ctx, 2, nullptr, nullptr, 0));
    if (!cq) {
        r.error = fmt::format("ibv_create_cq: {}", errno_name(errno));
        return r;
    }
    auto granted = try_inline(pd.get(), cq.get(), 0);
    if (!granted) {
        r.error = fmt::format("ibv_create_qp_ex (RC, 1 WR, no inline): {}", errno_name(errno));
        return r;
    }
    // Invariant: lo is accepted, hi is refused (or past the search limit).
    std::uint32_t lo = 0, hi = inline_search_limit + 1;
    std::uint32_t best = *granted;
    while (hi - lo > 1) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (auto g = try_inline(pd.get(), cq.get(), mid)) {
            lo = mid;
            best = std::max(best, *g);
        } else {
            hi = mid;
        }
    }
    r.ok = true;
    r.value = best;
    return r;
}

}  // namespace qps::verbs
