#include "src/report/srq.hpp"

namespace qps::report {

SrqReport build_srq_report(const Json& j)
{
    SrqReport r;
    r.id = j.at("id").get<std::uint32_t>();
    r.device = j.at("device").get<std::string>();
    r.max_wr = j.at("max_wr").get<std::uint32_t>();
    r.max_sge = j.at("max_sge").get<std::uint32_t>();
    r.limit = j.at("limit").get<std::uint32_t>();
    r.posted = j.value("posted", std::uint64_t{0});
    r.consumed = j.value("consumed", std::uint64_t{0});
    if (j.contains("xrcd")) {
        r.xrcd = j.at("xrcd").get<std::string>();
        r.srq_num = j.value("srq_num", 0u);
    }
    if (j.contains("events"))
        r.events = build_held_events(j.at("events"));
    r.qps = j.value("qps", std::vector<std::uint32_t>{});
    return r;
}

}  // namespace qps::report
