// The holder's shared receive queues: `qp srq create|query|modify|destroy`.
#include <cerrno>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "src/error.hpp"
#include "src/ops/held_objects.hpp"
#include "src/ops/held_qps.hpp"
#include "src/verbs/objects.hpp"

namespace qps::ops {

HeldSrq& HeldQps::find_srq(std::uint32_t id)
{
    auto it = srqs_.find(id);
    if (it == srqs_.end()) {
        std::vector<std::string> held;
        for (const auto& [n, s] : srqs_)
            held.push_back(std::to_string(n));
        throw UsageError(fmt::format("SRQ {} is not held by this user's holder; held SRQs: {}", id,
                                     held.empty() ? "none" : fmt::format("{}", fmt::join(held, ", "))));
    }
    return *it->second;
}

Json HeldQps::describe_srq(const HeldSrq& s) const
{
    ibv_srq_attr attr{};
    if (int rc = ibv_query_srq(s.srq.get(), &attr); rc != 0)
        throw SystemError(fmt::format("ibv_query_srq(SRQ {})", s.id), rc);
    Json qps = Json::array();
    for (const auto& [qpn, q] : qps_)
        if (q->srq == &s)
            qps.push_back(qpn);
    Json j{{"id", s.id},
                {"device", s.device->name},
                {"max_wr", attr.max_wr},
                {"max_sge", attr.max_sge},
                {"limit", attr.srq_limit},
                {"posted", s.posted},
                {"consumed", s.consumed},
                {"events", events_json(s.events)},
                {"qps", qps}};
    if (s.xrcd) {  // what a sender names: the SRQ's number in the domain
        std::uint32_t num = 0;
        if (int rc = ibv_get_srq_num(s.srq.get(), &num); rc != 0)
            throw SystemError(fmt::format("ibv_get_srq_num(SRQ {})", s.id), rc);
        j["xrcd"] = s.xrcd->path;
        j["srq_num"] = num;
    }
    return j;
}

Json HeldQps::srq_create(const Json& req)
{
    HeldDevice& dev = open_device(req.value("device", std::string()));
    // An XRC SRQ: of the domain on that file, with a CQ of its own.
    HeldXrcd* xrcd = req.contains("xrcd") ? &open_xrcd(dev, req["xrcd"].get<std::string>()) : nullptr;
    verbs::SrqSpec spec;
    spec.max_wr = req.value("max_wr", spec.max_wr);
    spec.max_sge = req.value("max_sge", spec.max_sge);
    spec.limit = req.value("limit", spec.limit);
    ibv_device_attr da{};
    if (int rc = ibv_query_device(dev.ctx.get(), &da); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", dev.name), rc);
    if (da.max_srq == 0)
        throw OperationError(fmt::format("{} has no shared receive queues: its max_srq is 0", dev.name));
    if (spec.max_wr > static_cast<std::uint32_t>(da.max_srq_wr))
        throw UsageError(fmt::format("{} {} exceeds {}'s max_srq_wr of {}", given(Given::max_wr), spec.max_wr,
                                     dev.name, da.max_srq_wr));
    if (spec.max_sge > static_cast<std::uint32_t>(da.max_srq_sge))
        throw UsageError(fmt::format("{} {} exceeds {}'s max_srq_sge of {}", given(Given::max_sge), spec.max_sge,
                                     dev.name, da.max_srq_sge));
    if (spec.limit > spec.max_wr)
        throw UsageError(fmt::format("{} {} is above the SRQ's depth ({} {}): the event could never be armed below it",
                                     given(Given::srq_limit), spec.limit, given(Given::max_wr), spec.max_wr));
    auto s = std::make_unique<HeldSrq>();
    s->device = &dev;
    if (xrcd) {
        s->xrcd = xrcd;
        s->cq = verbs::create_cq(dev.ctx.get(), spec.max_wr, dev.name);
        spec.xrcd = xrcd->xrcd.get();
        spec.cq = s->cq.get();
    }
    s->srq = verbs::create_srq(dev.pd.get(), spec, &s->granted);
    if (!s->srq)
        throw SystemError(fmt::format("ibv_create_srq_ex({}, max_wr {}, max_sge {})", dev.name, spec.max_wr,
                                      spec.max_sge),
                          errno, "a smaller --max-wr or --max-sge");
    s->id = next_srq_++;
    const std::uint32_t id = s->id;
    srqs_[id] = std::move(s);
    return describe_srq(*srqs_[id]);
}

Json HeldQps::srq_query(const Json& req) { return describe_srq(find_srq(req.value("id", 0u))); }

Json HeldQps::srq_modify(const Json& req)
{
    HeldSrq& s = find_srq(req.value("id", 0u));
    ibv_srq_attr attr{};
    int mask = 0;
    if (req.contains("limit")) {
        attr.srq_limit = req["limit"].get<std::uint32_t>();
        mask |= IBV_SRQ_LIMIT;
    }
    if (req.contains("max_wr")) {
        attr.max_wr = req["max_wr"].get<std::uint32_t>();
        mask |= IBV_SRQ_MAX_WR;
    }
    if (mask == 0)
        throw UsageError(fmt::format("nothing to change on SRQ {}: give {} or {}", s.id, given(Given::srq_limit),
                                     given(Given::max_wr)));
    if (int rc = ibv_modify_srq(s.srq.get(), &attr, mask); rc != 0)
        throw SystemError(fmt::format("ibv_modify_srq(SRQ {}{}{})", s.id,
                                      mask & IBV_SRQ_LIMIT ? fmt::format(", srq_limit {}", attr.srq_limit) : "",
                                      mask & IBV_SRQ_MAX_WR ? fmt::format(", max_wr {}", attr.max_wr) : ""),
                          rc,
                          "the limit must be below the receives the SRQ can hold; a provider may not resize an "
                          "SRQ (max_wr)");
    return describe_srq(s);
}

Json HeldQps::srq_destroy(const Json& req)
{
    Json destroyed = Json::array();
    if (req.value("all", false)) {
        for (const auto& [id, s] : srqs_)
            for (const auto& [qpn, q] : qps_)
                if (q->srq == s.get())
                    throw UsageError(fmt::format("SRQ {} serves QP {:#x}: destroy its QPs first", id, qpn));
        for (const auto& [id, s] : srqs_)
            destroyed.push_back(id);
        srqs_.clear();
    } else {
        HeldSrq& s = find_srq(req.value("id", 0u));
        std::vector<std::string> users;
        for (const auto& [qpn, q] : qps_)
            if (q->srq == &s)
                users.push_back(fmt::format("{:#x}", qpn));
        if (!users.empty())
            throw UsageError(fmt::format("SRQ {} serves QP {}: destroy {} first (ibv_destroy_srq refuses an SRQ "
                                         "in use)",
                                         s.id, fmt::join(users, ", "), users.size() == 1 ? "it" : "them"));
        const std::uint32_t id = s.id;
        if (int rc = ibv_destroy_srq(s.srq.get()); rc != 0)
            throw SystemError(fmt::format("ibv_destroy_srq(SRQ {})", id), rc);
        s.srq.release();  // destroyed above
        srqs_.erase(id);
        destroyed.push_back(id);
    }
    close_if_empty();
    return Json{{"destroyed", destroyed}, {"remaining", srqs_.size()}, {"holder_exits", none_left_}};
}

}  // namespace qps::ops
