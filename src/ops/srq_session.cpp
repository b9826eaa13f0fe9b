#include "src/ops/srq_session.hpp"

#include "src/ops/holder_client.hpp"

namespace qps::ops {

report::SrqReport create_srq(const SrqCreateSpec& spec)
{
    const ClientOptions start{true, spec.idle};
    Json req{{"device", spec.device}, {"max_wr", spec.max_wr}, {"max_sge", spec.max_sge}, {"limit", spec.limit}};
    if (!spec.xrcd.empty())
        req["xrcd"] = spec.xrcd;
    return report::build_srq_report(holder_call("srq_create", req, start));
}

XrcdOutcome open_xrcd(const std::string& device, const std::string& path, std::chrono::seconds idle)
{
    const ClientOptions start{true, idle};
    const Json r = holder_call("xrcd_open", Json{{"device", device}, {"path", path}}, start);
    return XrcdOutcome{r.value("device", std::string()), r.value("path", std::string()),
                       r.value("qps", std::vector<std::uint32_t>{}), r.value("srqs", std::vector<std::uint32_t>{})};
}

report::SrqReport query_srq(std::uint32_t id)
{
    return report::build_srq_report(holder_call("srq_query", Json{{"id", id}}));
}

report::SrqReport modify_srq(std::uint32_t id, std::optional<std::uint32_t> limit, std::optional<std::uint32_t> max_wr)
{
    Json req{{"id", id}};
    if (limit)
        req["limit"] = *limit;
    if (max_wr)
        req["max_wr"] = *max_wr;
    return report::build_srq_report(holder_call("srq_modify", req));
}

SrqDestroyOutcome destroy_srqs(std::optional<std::uint32_t> id)
{
    const Json result = holder_call("srq_destroy", id ? Json{{"id", *id}} : Json{{"all", true}});
    SrqDestroyOutcome out;
    out.destroyed = result.value("destroyed", std::vector<std::uint32_t>{});
    out.holder_exits = result.value("holder_exits", false);
    return out;
}

}  // namespace qps::ops
