#include "src/qp/validate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/device.hpp"
#include "src/decode/gid.hpp"
#include "src/decode/port.hpp"
#include "src/decode/qp.hpp"
#include "src/error.hpp"
#include "src/qp/transitions.hpp"
#include "src/util/text.hpp"

namespace qps::qp {

namespace {

class Checker {
public:
    Checker(ibv_context* ctx, const ibv_qp_attr& current, ibv_qp_type type, const ModifyRequest& req)
        : ctx_(ctx), cur_(current), type_(type), req_(req)
    {
    }

    Validation run()
    {
        ibv_qp_attr attr{};
        int mask = 0;
        to_verbs(req_, cur_, attr, mask);
        if (!transition(static_cast<std::uint32_t>(mask) & ~static_cast<std::uint32_t>(IBV_QP_STATE)))
            return std::move(v_);  // attribute checks mean little on a transition that cannot happen
        device_limits();
        if (!port())
            return std::move(v_);
        pkey();
        address_vector();
        mtu();
        qkey();
        return std::move(v_);
    }

private:
    void pass(std::string s) { v_.passed.push_back(std::move(s)); }
    void fail(std::string s) { v_.problems.push_back(std::move(s)); }
    std::string state_name(ibv_qp_state s) const { return *decode::qp_state(s).name; }

    bool transition(std::uint32_t mask)
    {
        const ibv_qp_state next = req_.state.value_or(cur_.qp_state);
        const TransitionCheck t = check_transition(cur_.qp_state, next, type_, mask);
        if (!t.exists || t.missing || t.forbidden) {
            fail(explain(t, cur_.qp_state, next, type_));
            return false;
        }
        pass(fmt::format("{}→{} exists for {} and has its required attributes", state_name(cur_.qp_state),
                         state_name(next), *decode::qp_type(type_).name));
        return true;
    }

    void device_limits()
    {
        if (!req_.max_rd_atomic && !req_.max_dest_rd_atomic)
            return;
        ibv_device_attr d{};
        if (ibv_query_device(ctx_, &d) != 0)
            return;
        if (req_.max_rd_atomic) {
            if (*req_.max_rd_atomic > d.max_qp_init_rd_atom)
                fail(fmt::format("{} {} exceeds the device's max_qp_init_rd_atom {}", given(Given::max_rd_atomic),
                                 *req_.max_rd_atomic, d.max_qp_init_rd_atom));
            else
                pass(fmt::format("max-rd-atomic {} ≤ max_qp_init_rd_atom {}", *req_.max_rd_atomic,
                                 d.max_qp_init_rd_atom));
        }
        if (req_.max_dest_rd_atomic) {
            if (*req_.max_dest_rd_atomic > d.max_qp_rd_atom)
                fail(fmt::format("{} {} exceeds the device's max_qp_rd_atom {}", given(Given::max_dest_rd_atomic),
                                 *req_.max_dest_rd_atomic, d.max_qp_rd_atom));
            else
                pass(fmt::format("max-dest-rd-atomic {} ≤ max_qp_rd_atom {}", *req_.max_dest_rd_atomic,
                                 d.max_qp_rd_atom));
        }
    }

    bool port()
    {
        port_num_ = req_.port.value_or(cur_.port_num);
        if (port_num_ == 0)
            return false;  // RESET QP without a port in the request: nothing to check against
        ibv_device_attr d{};
        if (ibv_query_device(ctx_, &d) != 0)
            return false;
        if (port_num_ > d.phys_port_cnt) {
            fail(fmt::format("port {} does not exist: the device has ports 1..{}", port_num_, d.phys_port_cnt));
            return false;
        }
        if (ibv_query_port(ctx_, port_num_, &port_) != 0)
            return false;
        pass(fmt::format("port {} exists ({})", port_num_, *decode::port_state(port_.state).name));
        return true;
    }

    void pkey()
    {
        if (!req_.pkey_index)
            return;
        const auto idx = *req_.pkey_index;
        __be16 pkey = 0;
        if (idx >= port_.pkey_tbl_len) {
            fail(fmt::format("{} {} is past port {}'s P_Key table: valid indices are 0..{}", given(Given::pkey_index),
                             idx, port_num_, port_.pkey_tbl_len - 1));
        } else if (ibv_query_pkey(ctx_, port_num_, idx, &pkey) != 0 || be16toh(pkey) == 0) {
            fail(fmt::format("{} {} points at an empty P_Key entry on port {}", given(Given::pkey_index), idx,
                             port_num_));
        } else {
            pass(fmt::format("pkey-index {} → P_Key {:#06x}", idx, be16toh(pkey)));
        }
    }

    std::vector<std::uint32_t> valid_gid_indices()
    {
        std::vector<std::uint32_t> out;
        for (int i = 0; i < port_.gid_tbl_len; ++i) {
            ibv_gid_entry e{};
            if (ibv_query_gid_ex(ctx_, port_num_, static_cast<std::uint32_t>(i), &e, 0) == 0)
                out.push_back(static_cast<std::uint32_t>(i));
        }
        return out;
    }

    void address_vector()
    {
        if (!req_.has_av())
            return;
        const bool roce = port_.link_layer == IBV_LINK_LAYER_ETHERNET;
        const bool global = req_.dgid.has_value() || cur_.ah_attr.is_global;
        if (roce && !global) {
            fail(fmt::format("port {} is RoCE (Ethernet): the address vector needs a GRH; give {} (the peer's GID) "
                             "and {}",
                             port_num_, given(Given::dgid), given(Given::gid_index)));
            return;
        }
        if (!global)
            return;
        const std::uint32_t sgid = req_.sgid_index.value_or(cur_.ah_attr.grh.sgid_index);
        ibv_gid_entry e{};
        if (ibv_query_gid_ex(ctx_, port_num_, sgid, &e, 0) != 0) {
            const auto valid = valid_gid_indices();
            fail(fmt::format("{} {} is not a valid GID entry of port {}: valid indices are {}", given(Given::gid_index),
                             sgid, port_num_, fmt::join(valid, ", ")));
            return;
        }
        decode::GidBytes bytes;
        std::memcpy(bytes.data(), e.gid.raw, 16);
        pass(fmt::format("sgid-index {} → {} ({})", sgid, decode::format_gid(bytes),
                         *decode::gid_type(static_cast<int>(e.gid_type)).name));
        if (roce && req_.dgid && decode::gid_is_zero(*req_.dgid))
            fail(fmt::format("{} is all zeros: give the peer's GID (or its IPv4 address)", given(Given::dgid)));
    }

    void mtu()
    {
        if (!req_.path_mtu)
            return;
        const int bytes = 128 << *req_.path_mtu;
        const int port_bytes = 128 << port_.active_mtu;
        if (*req_.path_mtu > port_.active_mtu)
            fail(fmt::format("{} {} is above port {}'s active MTU of {} bytes", given(Given::mtu), bytes, port_num_,
                             port_bytes));
        else
            pass(fmt::format("mtu {} ≤ port {}'s active MTU {}", bytes, port_num_, port_bytes));
    }

    void qkey()
    {
        if (req_.qkey && (*req_.qkey & 0x80000000u))
            fail(fmt::format("{} {:#x} has bit 31 set: a controlled Q_Key, which only privileged consumers "
                             "may use; pick one below 0x80000000",
                             given(Given::qkey), *req_.qkey));
    }

    ibv_context* ctx_;
    const ibv_qp_attr& cur_;
    ibv_qp_type type_;
    const ModifyRequest& req_;
    std::uint8_t port_num_ = 0;
    ibv_port_attr port_{};
    Validation v_;
};

}  // namespace

Validation validate_modify(ibv_context* ctx, const ibv_qp_attr& current, ibv_qp_type type, const ModifyRequest& req)
{
    return Checker(ctx, current, type, req).run();
}

std::optional<std::string> atomic_post_problem(const AtomicPostFacts& f)
{
    const std::string_view op = post_op_name(f.op);
    if (f.type != IBV_QPT_RC)
        return fmt::format("{} {}: QP {:#x} is {}; atomics run on RC QPs only (qp create --transport rc)",
                           given(Given::op), op, f.qpn,
                           decode::qp_type(f.type).name.value_or("not RC"));
    if (f.atomic_cap == IBV_ATOMIC_NONE)
        return fmt::format("{} {}: {}", given(Given::op), op, decode::no_atomics_text(f.device));
    if (f.max_rd_atomic == 0 && (f.state == IBV_QPS_RTS || f.state == IBV_QPS_SQD))
        return fmt::format("{} {}: QP {:#x} has max_rd_atomic 0, so it can have no atomic in flight: give it 1 or "
                           "more on its way to RTS (qp modify --max-rd-atomic)",
                           given(Given::op), op, f.qpn);
    if (f.target) {
        if (!(f.target->access & IBV_ACCESS_REMOTE_ATOMIC)) {
            std::vector<std::string> has;  // as --access spells them
            for (const auto& n : decode::access_flags(f.target->access).names)
                has.push_back(util::lower(n));
            std::vector<std::string> wanted = has;
            wanted.emplace_back("remote_atomic");
            return fmt::format("{} {}: the target QP {:#x} was not given remote_atomic access (its access: {}): "
                               "give it --access {} (qp create or qp modify)",
                               given(Given::op), op, f.target->qpn,
                               has.empty() ? "none" : fmt::format("{}", fmt::join(has, ",")), fmt::join(wanted, ","));
        }
        if (f.target->max_dest_rd_atomic == 0)
            return fmt::format("{} {}: the target QP {:#x} has max_dest_rd_atomic 0, so it accepts no atomic: give "
                               "it 1 or more on its way to RTR (qp modify --max-dest-rd-atomic)",
                               given(Given::op), op, f.target->qpn);
    }
    if (f.remote_addr % atomic_operand_bytes != 0)
        return fmt::format("{} {:#x}: an atomic's target must be 8-byte aligned", given(Given::raddr), f.remote_addr);
    return std::nullopt;
}

}  // namespace qps::qp
