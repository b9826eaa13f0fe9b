#include "src/verbs/create_qp.hpp"

#include <array>
#include <cerrno>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/verbs/handles.hpp"

namespace qps::verbs {

Json to_json(const CreateRequest& c)
{
    Json j{{"device", c.device},     {"port", c.port},         {"type", c.type},
                {"send_wr", c.send_wr},   {"recv_wr", c.recv_wr},   {"send_sge", c.send_sge},
                {"recv_sge", c.recv_sge}, {"max_inline", c.max_inline}, {"cq_depth", c.cq_depth},
                {"sq_sig_all", c.sq_sig_all}, {"buffer_size", c.buffer_size}};
    if (c.srq)
        j["srq"] = *c.srq;
    if (!c.xrcd.empty())
        j["xrcd"] = c.xrcd;
    return j;
}

CreateRequest create_request_from_json(const Json& j)
{
    CreateRequest c;
    c.device = j.value("device", c.device);
    c.port = j.value("port", c.port);
    c.type = static_cast<ibv_qp_type>(j.value("type", static_cast<int>(c.type)));
    c.send_wr = j.value("send_wr", c.send_wr);
    c.recv_wr = j.value("recv_wr", c.recv_wr);
    c.send_sge = j.value("send_sge", c.send_sge);
    c.recv_sge = j.value("recv_sge", c.recv_sge);
    c.max_inline = j.value("max_inline", c.max_inline);
    c.cq_depth = j.value("cq_depth", c.cq_depth);
    c.sq_sig_all = j.value("sq_sig_all", c.sq_sig_all);
    c.buffer_size = j.value("buffer_size", c.buffer_size);
    if (j.contains("srq"))
        c.srq = j["srq"].get<std::uint32_t>();
    c.xrcd = j.value("xrcd", c.xrcd);
    if (c.cq_depth == 0)
        c.cq_depth = c.send_wr + c.recv_wr;
    if (!decode::created_qp_type(decode::qp_type_word(c.type)))
        throw UsageError(fmt::format("QP type {}: valid types are {}", static_cast<int>(c.type),
                                     fmt::join(decode::created_qp_type_words(), ", ")));
    check_xrc_options(c);
    return c;
}

void check_xrc_options(const CreateRequest& c)
{
    const std::string type = decode::qp_type_word(c.type);
    if (c.type == IBV_QPT_XRC_RECV && c.xrcd.empty())
        throw UsageError(fmt::format("{} xrc-recv lives in an XRC domain: give {} FILE (the file every process that "
                                     "shares the domain opens; qp xrcd open FILE)",
                                     given(Given::transport), given(Given::xrcd)));
    if (c.type != IBV_QPT_XRC_RECV && !c.xrcd.empty())
        throw UsageError(fmt::format("{} {}: only an xrc-recv QP lives in an XRC domain ({} {} takes a protection "
                                     "domain; an XRC SRQ: qp srq create {})",
                                     given(Given::xrcd), c.xrcd, given(Given::transport), type, given(Given::xrcd)));
    if (decode::is_xrc(c.type) && c.srq)
        throw UsageError(fmt::format("{} {}: {} {} has no receive queue to share (xrc-send sends only; an xrc-recv "
                                     "QP's messages land in the XRC SRQ the sender names)",
                                     given(Given::srq), *c.srq, given(Given::transport), type));
}

QpSpec qp_spec(const CreateRequest& c, ibv_cq* cq)
{
    QpSpec s;
    s.type = c.type;
    s.send_cq = cq;
    s.recv_cq = cq;
    s.sq_sig_all = c.sq_sig_all;
    s.cap = {c.send_wr, c.recv_wr, c.send_sge, c.recv_sge, c.max_inline};
    if (c.type == IBV_QPT_XRC_SEND)  // no receive side
        s.cap.max_recv_wr = s.cap.max_recv_sge = 0;
    return s;
}

void check_create_against_device(ibv_context* ctx, const std::string& device, const CreateRequest& c)
{
    ibv_device_attr d{};
    if (int rc = ibv_query_device(ctx, &d); rc != 0)
        throw SystemError(fmt::format("ibv_query_device({})", device), rc);
    if (c.port < 1 || c.port > d.phys_port_cnt)
        throw UsageError(fmt::format("{} {}: {} has ports 1..{}", given(Given::ib_port), c.port, device,
                                     d.phys_port_cnt));
    struct Limit {
        Given given;
        std::uint64_t value;
        const char* attribute;
        std::uint64_t max;
    };
    const std::array<Limit, 5> limits{{
        {Given::send_wr, c.send_wr, "max_qp_wr", static_cast<std::uint64_t>(d.max_qp_wr)},
        {Given::recv_wr, c.recv_wr, "max_qp_wr", static_cast<std::uint64_t>(d.max_qp_wr)},
        {Given::send_sge, c.send_sge, "max_sge", static_cast<std::uint64_t>(d.max_sge)},
        {Given::recv_sge, c.recv_sge, "max_sge", static_cast<std::uint64_t>(d.max_sge)},
        {Given::cq_depth, c.cq_depth, "max_cqe", static_cast<std::uint64_t>(d.max_cqe)},
    }};
    for (const auto& l : limits)
        if (l.value > l.max)
            throw UsageError(
                fmt::format("{} {} exceeds {}'s {} of {}", given(l.given), l.value, device, l.attribute, l.max));
}

namespace {

bool accepted(ibv_pd* pd, ibv_cq* cq, const CreateRequest& c) { return create_qp(pd, qp_spec(c, cq)) != nullptr; }

struct Cap {
    Given given;
    std::uint32_t CreateRequest::*field;
    std::uint32_t minimum;
};
constexpr std::array<Cap, 5> caps{{
    {Given::send_wr, &CreateRequest::send_wr, 1},
    {Given::recv_wr, &CreateRequest::recv_wr, 1},
    {Given::send_sge, &CreateRequest::send_sge, 1},
    {Given::recv_sge, &CreateRequest::recv_sge, 1},
    {Given::max_inline, &CreateRequest::max_inline, 0},
}};

}  // namespace

void explain_create_failure(ibv_pd* pd, ibv_cq* cq, const std::string& device, const CreateRequest& c, int err)
{
    for (const Cap& cap : caps) {
        CreateRequest lowered = c;
        lowered.*cap.field = cap.minimum;
        if (c.*cap.field == cap.minimum || !accepted(pd, cq, lowered))
            continue;
        // Largest accepted value: lo accepted, hi refused.
        std::uint32_t lo = cap.minimum, hi = c.*cap.field;
        while (hi - lo > 1) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            lowered.*cap.field = mid;
            (accepted(pd, cq, lowered) ? lo : hi) = mid;
        }
        throw UsageError(fmt::format("{} {} was refused by {}: the largest it accepts (other caps as given) is {}",
                                     given(cap.given), c.*cap.field, device, lo));
    }
    throw SystemError(fmt::format("ibv_create_qp_ex on {}", device), err,
                      "no single cap explains it; check the QP type and the number of QPs already open");
}

}  // namespace qps::verbs
