#include "src/qp/plan.hpp"

#include <fmt/format.h>

#include "src/qp/transitions.hpp"

namespace qps::qp {

std::uint32_t mask_of(const ModifyRequest& r)
{
    const ibv_qp_attr none{};
    ibv_qp_attr attr{};
    int mask = 0;
    to_verbs(r, none, attr, mask);
    return static_cast<std::uint32_t>(mask);
}

ModifyRequest restrict_to(const ModifyRequest& r, std::uint32_t mask)
{
    ModifyRequest out;
    auto keep = [mask](auto& dst, const auto& src, std::uint32_t bit) {
        if (mask & bit)
            dst = src;
    };
    out.state = r.state;
    keep(out.cur_state, r.cur_state, IBV_QP_CUR_STATE);
    keep(out.port, r.port, IBV_QP_PORT);
    keep(out.pkey_index, r.pkey_index, IBV_QP_PKEY_INDEX);
    keep(out.qkey, r.qkey, IBV_QP_QKEY);
    keep(out.access, r.access, IBV_QP_ACCESS_FLAGS);
    keep(out.path_mtu, r.path_mtu, IBV_QP_PATH_MTU);
    keep(out.dest_qpn, r.dest_qpn, IBV_QP_DEST_QPN);
    keep(out.rq_psn, r.rq_psn, IBV_QP_RQ_PSN);
    keep(out.sq_psn, r.sq_psn, IBV_QP_SQ_PSN);
    keep(out.max_rd_atomic, r.max_rd_atomic, IBV_QP_MAX_QP_RD_ATOMIC);
    keep(out.max_dest_rd_atomic, r.max_dest_rd_atomic, IBV_QP_MAX_DEST_RD_ATOMIC);
    keep(out.min_rnr_timer, r.min_rnr_timer, IBV_QP_MIN_RNR_TIMER);
    keep(out.timeout, r.timeout, IBV_QP_TIMEOUT);
    keep(out.retry_cnt, r.retry_cnt, IBV_QP_RETRY_CNT);
    keep(out.rnr_retry, r.rnr_retry, IBV_QP_RNR_RETRY);
    keep(out.path_mig_state, r.path_mig_state, IBV_QP_PATH_MIG_STATE);
    if (mask & IBV_QP_AV) {
        out.dgid = r.dgid;
        out.dlid = r.dlid;
        out.sl = r.sl;
        out.sgid_index = r.sgid_index;
        out.hop_limit = r.hop_limit;
        out.traffic_class = r.traffic_class;
        out.flow_label = r.flow_label;
        out.static_rate = r.static_rate;
    }
    return out;
}

namespace {

// Fills one required attribute from its default when the user gave none.
template <class T>
void fill(Step& step, std::uint32_t required, std::uint32_t bit, std::optional<T>& field, T value,
          const char* name, const std::string& shown)
{
    if ((required & bit) && !field) {
        field = value;
        step.defaulted.push_back(fmt::format("{} {}", name, shown));
    }
}

}  // namespace

std::vector<Step> plan_steps(ibv_qp_type type, ibv_qp_state target, const ModifyRequest& given, ibv_mtu mtu)
{
    static constexpr ibv_qp_state path[] = {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS};
    std::vector<Step> steps;
    ibv_qp_state cur = IBV_QPS_RESET;
    for (ibv_qp_state next : path) {
        const TransitionCheck t = check_transition(cur, next, type, 0);
        Step step;
        step.request = restrict_to(given, t.required | t.optional);
        step.request.state = next;
        const std::uint32_t req = t.required;
        auto& r = step.request;
        fill(step, req, IBV_QP_PKEY_INDEX, r.pkey_index, std::uint16_t{0}, "pkey-index", "0");
        fill(step, req, IBV_QP_PORT, r.port, std::uint8_t{1}, "port", "1");
        fill(step, req, IBV_QP_ACCESS_FLAGS, r.access,
             unsigned{IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ}, "access",
             "local_write,remote_write,remote_read");
        fill(step, req, IBV_QP_QKEY, r.qkey, std::uint32_t{0x11111111}, "qkey", "0x11111111");
        fill(step, req, IBV_QP_PATH_MTU, r.path_mtu, mtu, "mtu", fmt::format("{} (the port's active MTU)", 128 << mtu));
        fill(step, req, IBV_QP_RQ_PSN, r.rq_psn, std::uint32_t{0}, "rq-psn", "0");
        fill(step, req, IBV_QP_SQ_PSN, r.sq_psn, std::uint32_t{0}, "sq-psn", "0");
        fill(step, req, IBV_QP_MAX_DEST_RD_ATOMIC, r.max_dest_rd_atomic, std::uint8_t{1}, "max-dest-rd-atomic", "1");
        fill(step, req, IBV_QP_MAX_QP_RD_ATOMIC, r.max_rd_atomic, std::uint8_t{1}, "max-rd-atomic", "1");
        fill(step, req, IBV_QP_MIN_RNR_TIMER, r.min_rnr_timer, std::uint8_t{12}, "min-rnr-timer", "12 (0.64 ms)");
        fill(step, req, IBV_QP_TIMEOUT, r.timeout, std::uint8_t{14}, "timeout", "14 (67.1 ms)");
        fill(step, req, IBV_QP_RETRY_CNT, r.retry_cnt, std::uint8_t{7}, "retry-cnt", "7");
        fill(step, req, IBV_QP_RNR_RETRY, r.rnr_retry, std::uint8_t{7}, "rnr-retry", "7 (infinite)");
        steps.push_back(std::move(step));
        cur = next;
        if (next == target)
            break;
    }
    return steps;
}

}  // namespace qps::qp
