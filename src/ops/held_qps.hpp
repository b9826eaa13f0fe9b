// What the holder (src/ops/holder.hpp) owns for its user: opened devices,
// and QPs, each with its own CQ and a registered buffer for `qp post`; and
// the requests on them, in and out as the holder protocol's JSON
// (src/ops/holder_protocol.hpp). A refused request throws (UsageError,
// SystemError) for the holder to send back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "src/json.hpp"

namespace qps::ops {

struct HeldDevice;
struct HeldQp;
struct HeldSrq;

class HeldQps {
public:
    HeldQps();
    ~HeldQps();
    HeldQps(const HeldQps&) = delete;
    HeldQps& operator=(const HeldQps&) = delete;

    // The requests, one per protocol "op".
    Json create(const Json& req);
    Json destroy(const Json& req);
    Json list(const Json& req);
    Json query(const Json& req);
    Json modify(const Json& req);
    Json post(const Json& req);
    // Shared receive queues: `qp srq create|query|modify|destroy`; a QP
    // made with "srq" takes its receives from one.
    Json srq_create(const Json& req);
    Json srq_query(const Json& req);
    Json srq_modify(const Json& req);
    Json srq_destroy(const Json& req);

    // A destroy left no QP: the holder exits after its reply.
    bool none_left() const { return none_left_; }
    bool empty() const { return qps_.empty() && srqs_.empty(); }
    // Every QP (with its MR, buffer and CQ), every SRQ, then every PD and context.
    void release();

private:
    HeldDevice& open_device(const std::string& name);
    HeldQp& find(const Json& req);
    HeldSrq& find_srq(std::uint32_t id);
    Json describe_srq(const HeldSrq& s) const;
    // Nothing left: the devices go, and the holder exits after its reply.
    void close_if_empty();
    Json describe(const HeldQp& q) const;
    // The QP `dest_qpn` when this holder has it too, on q's device.
    HeldQp* peer_held_here(const HeldQp& q, std::uint32_t dest_qpn);

    // Devices before QPs: QPs are destroyed first.
    std::map<std::string, std::unique_ptr<HeldDevice>> devices_;
    // SRQs after devices, QPs after SRQs: QPs go first, then the SRQs they used.
    std::map<std::uint32_t, std::unique_ptr<HeldSrq>> srqs_;
    std::uint32_t next_srq_ = 1;
    std::map<std::uint32_t, std::unique_ptr<HeldQp>> qps_;
    bool none_left_ = false;
};

}  // namespace qps::ops
