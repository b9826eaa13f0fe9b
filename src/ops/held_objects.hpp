// What the holder holds, one struct each (src/ops/held_qps.hpp's class
// keeps them): an opened device with its PD, a shared receive queue, a QP
// with its CQ and buffer, and the asynchronous events each has raised.
// Private to src/ops/held_*.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <infiniband/verbs.h>
#include <optional>
#include <string>
#include <vector>

#include "src/json.hpp"
#include "src/util/fd.hpp"
#include "src/verbs/handles.hpp"

namespace qps::ops {

// One opened device. Members are declared parent-first: the PD is released
// before the context that owns it.
struct HeldDevice {
    std::string name;
    verbs::Context ctx;
    verbs::ProtectionDomain pd;
    int atomic_cap = IBV_ATOMIC_NONE;  // ibv_device_attr::atomic_cap: may its buffers be atomic targets
    bool xrc = false;                  // device_cap_flags has XRC
};

// An XRC domain opened on a file (qp xrcd open FILE): every process that
// opens the same file on the device shares it. The file stays open while
// the domain is.
struct HeldXrcd {
    HeldDevice* device = nullptr;
    std::string path;
    util::Fd file;
    verbs::XrcDomain xrcd;
};

// An asynchronous event the holder read for one of its objects (an SRQ's
// SRQ_LIMIT_REACHED, a QP's COMM_EST or QP_FATAL), and when it read it.
struct HeldEvent {
    int type = 0;  // ibv_event_type
    std::chrono::system_clock::time_point at;
};

// [{"event", "severity", "scope", "at"}], oldest first (held_qps.cpp).
Json events_json(const std::vector<HeldEvent>& events);

struct Completion {
    ibv_wc_status status;
    std::uint32_t vendor_err;
    ibv_wc_opcode opcode;
    std::uint32_t byte_len;
    std::uint32_t qp_num;
};
// {"status", "vendor_err", "opcode", "byte_len", "qp_num"} (held_qps.cpp).
Json completion_json(const Completion& c);

// One shared receive queue, on a device's PD; `id` is the holder's own
// number for it (a basic SRQ has no number of the device's).
struct HeldSrq {
    HeldDevice* device = nullptr;
    std::uint32_t id = 0;
    HeldXrcd* xrcd = nullptr;  // an XRC SRQ: its domain
    verbs::CompletionQueue cq;  // an XRC SRQ's completions; released after the SRQ
    verbs::SharedReceiveQueue srq;
    ibv_srq_attr granted{};
    std::uint64_t posted = 0;    // receives posted to it
    std::uint64_t consumed = 0;  // of them, taken by a message (receive completions the holder reaped)
    std::vector<HeldEvent> events;
};

// One held QP with its own CQ and a registered buffer for `qp post`.
// Declaration order is destruction order reversed: QP, then MR, then the
// buffer, then the CQ.
struct HeldQp {
    HeldDevice* device = nullptr;
    std::uint8_t port = 1;
    verbs::CompletionQueue cq;
    verbs::PageBuffer buffer;
    std::size_t buffer_size = 0;
    verbs::MemoryRegion mr;
    verbs::QueuePair qp;
    HeldSrq* srq = nullptr;  // its receives come from this SRQ
    HeldXrcd* xrcd = nullptr;  // an xrc-recv QP: its domain
    ibv_qp_cap granted{};  // what the device granted (verbs::create_qp writes it)
    std::optional<Completion> last_error;
    std::uint64_t posted = 0;
    std::vector<HeldEvent> events;
};

}  // namespace qps::ops
