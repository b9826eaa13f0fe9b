#include "src/verbs/gid_choice.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <infiniband/verbs.h>

#include "src/decode/gid.hpp"
#include "src/qp/attributes.hpp"
#include "src/verbs/discovery.hpp"
#include "src/verbs/handles.hpp"

namespace qps::verbs {

namespace {

int rank(const GidCandidate& c, std::span<const decode::GidKind> prefer)
{
    const bool v4 = decode::gid_ipv4(c.gid).has_value();
    int type_rank = 4;
    switch (c.type) {
    case IBV_GID_TYPE_ROCE_V2: type_rank = v4 ? 0 : 1; break;
    case IBV_GID_TYPE_ROCE_V1: type_rank = v4 ? 2 : 3; break;
    default: break;
    }
    if (prefer.empty())
        return type_rank;
    // The destination's kinds first, in their order; then everything else.
    const auto it = std::find(prefer.begin(), prefer.end(), decode::gid_kind(c.gid));
    const auto kind_rank = static_cast<int>(it - prefer.begin());  // prefer.size() when not wanted
    return kind_rank * 8 + type_rank;
}

std::string kinds_text(std::span<const decode::GidKind> kinds)
{
    std::vector<std::string_view> names;
    for (auto k : kinds)
        names.push_back(decode::gid_kind_name(k));
    return fmt::format("{}", fmt::join(names, ", then "));
}

std::string describe(const GidCandidate& c)
{
    const auto v4 = decode::gid_ipv4(c.gid);
    return fmt::format("{}{}", *decode::gid_type(c.type).name, v4 ? fmt::format(" with IPv4 {}", *v4) : "");
}

}  // namespace

GidChoice choose_among(const std::vector<GidCandidate>& candidates, std::optional<std::uint32_t> wanted,
                       std::span<const decode::GidKind> prefer)
{
    GidChoice choice;
    const GidCandidate* best = nullptr;
    for (const auto& c : candidates) {
        if ((wanted && c.index != *wanted) || c.index > 255)  // sgid_index is 8 bits
            continue;
        if (!best || rank(c, prefer) < rank(*best, prefer) ||
            (rank(c, prefer) == rank(*best, prefer) && c.index < best->index))
            best = &c;
    }
    if (!best)
        return choice;
    choice.found = true;
    choice.index = static_cast<std::uint8_t>(best->index);
    choice.gid = best->gid;
    choice.why = wanted ? fmt::format("index {} as asked ({})", best->index, describe(*best))
                 : prefer.empty()
                     ? fmt::format("{} — RoCE v2 with an IPv4 address is preferred, then RoCE v2, RoCE v1, "
                                   "IB; lowest index first",
                                   describe(*best))
                     : fmt::format("{} — a GID of the destination's kind first ({}), then RoCE v2 with an IPv4 "
                                   "address, RoCE v2, RoCE v1, IB; lowest index first",
                                   describe(*best), kinds_text(prefer));
    return choice;
}

std::optional<std::uint32_t> index_of_address(const std::vector<GidCandidate>& candidates, const std::string& address)
{
    const auto want = qp::parse_gid(address);  // an IPv4 address: its mapped GID
    if (!want)
        return std::nullopt;
    std::optional<std::uint32_t> v1;
    for (const GidCandidate& c : candidates) {
        if (c.gid != *want)
            continue;
        if (c.type == IBV_GID_TYPE_ROCE_V2)
            return c.index;
        if (!v1)
            v1 = c.index;
    }
    return v1;
}

std::vector<GidCandidate> read_gid_candidates(ibv_context* ctx, std::uint8_t port)
{
    ibv_port_attr pa{};
    std::vector<GidCandidate> candidates;
    if (ctx == nullptr || ibv_query_port(ctx, port, &pa) != 0)
        return candidates;
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
        ibv_gid_entry e{};
        if (ibv_query_gid_ex(ctx, port, static_cast<std::uint32_t>(i), &e, 0) != 0)
            continue;
        GidCandidate c{static_cast<std::uint32_t>(i), {}, static_cast<int>(e.gid_type)};
        std::memcpy(c.gid.data(), e.gid.raw, 16);
        candidates.push_back(c);
    }
    return candidates;
}

GidChoice choose_gid(ibv_context* ctx, std::uint8_t port, std::optional<std::uint32_t> wanted,
                     std::span<const decode::GidKind> prefer)
{
    ibv_port_attr pa{};
    if (ctx == nullptr || ibv_query_port(ctx, port, &pa) != 0)
        return {};
    GidChoice choice = choose_among(read_gid_candidates(ctx, port), wanted, prefer);
    choice.active_mtu = pa.active_mtu;
    return choice;
}

GidChoice choose_gid(const std::string& device, std::uint8_t port, std::optional<std::uint32_t> wanted,
                     std::span<const decode::GidKind> prefer)
{
    Context ctx;
    try {
        ctx = open_device(device).ctx;
    } catch (const std::exception&) {
        return {};
    }
    return choose_gid(ctx.get(), port, wanted, prefer);
}

}  // namespace qps::verbs
