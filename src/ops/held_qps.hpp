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
#include <vector>

#include "src/json.hpp"

namespace qps::ops {

struct HeldDevice;
struct HeldQp;
struct HeldSrq;
struct HeldXrcd;

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
    // `qp xrcd open FILE`: an XRC domain on a file, held until destroy --all.
    Json xrcd_open(const Json& req);

    // The opened devices' asynchronous event files, for the holder's poll;
    // take_events() reads what waits on them and files each event with the
    // SRQ or QP it names (qp query and qp srq query show them).
    std::vector<int> event_fds() const;
    void take_events();

    // A destroy left no QP: the holder exits after its reply.
    bool none_left() const { return none_left_; }
    bool empty() const { return qps_.empty() && srqs_.empty() && xrcds_.empty(); }
    // Every QP (with its MR, buffer and CQ), every SRQ, then every PD and context.
    void release();

private:
    HeldDevice& open_device(const std::string& name);
    HeldQp& find(const Json& req);
    HeldSrq& find_srq(std::uint32_t id);
    Json describe_srq(const HeldSrq& s) const;
    // The device's XRC domain on `path`, opened once; OperationError
    // (decode::no_xrc_text) on a device without XRC.
    HeldXrcd& open_xrcd(HeldDevice& dev, const std::string& path);
    // `qp query --xrcd FILE QPN`: the XRC_RECV QP opened by its number in
    // the domain (ibv_open_qp), queried, and closed again.
    Json query_xrc(const Json& req);
    // Nothing left: the devices go, and the holder exits after its reply.
    void close_if_empty();
    Json describe(const HeldQp& q) const;
    // The QP `dest_qpn` when this holder has it too, on q's device.
    HeldQp* peer_held_here(const HeldQp& q, std::uint32_t dest_qpn);
    // `qp post --recv`: receives into the QP's SRQ, or its receive queue.
    Json post_receives(HeldQp& q, const Json& req);

    // Devices before QPs: QPs are destroyed first.
    std::map<std::string, std::unique_ptr<HeldDevice>> devices_;
    // XRC domains after devices, SRQs after them, QPs after SRQs: QPs go
    // first, then the SRQs they used, then the domains.
    std::map<std::string, std::unique_ptr<HeldXrcd>> xrcds_;  // by device and path
    std::map<std::uint32_t, std::unique_ptr<HeldSrq>> srqs_;
    std::uint32_t next_srq_ = 1;
    std::map<std::uint32_t, std::unique_ptr<HeldQp>> qps_;
    bool none_left_ = false;
};

}  // namespace qps::ops
