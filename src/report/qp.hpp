// The decoded view of one QP: everything ibv_query_qp returns, plus the
// derived waits, the last completion error the holder kept, and, for a QP in
// ERR or SQE, a diagnosis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/decode/decode.hpp"
#include "src/json.hpp"
#include "src/kernel/sysfs.hpp"

namespace qps::report {

struct AddressReport {
    std::uint16_t dlid = 0;
    std::uint8_t sl = 0, port = 0, src_path_bits = 0;
    decode::Decoded static_rate;
    bool global = false;
    std::string dgid;
    std::uint32_t flow_label = 0;
    std::uint8_t sgid_index = 0, hop_limit = 0;
    std::string sgid;                        // the GID at sgid_index, when known
    std::optional<decode::Decoded> sgid_type;
    decode::Decoded traffic_class;           // raw tc, name "DSCP d, ECN name"
    std::uint8_t dscp = 0;
    decode::Decoded ecn;
};

struct CompletionReport {
    decode::Decoded status;
    std::string meaning;
    std::uint32_t vendor_err = 0;
    decode::Decoded opcode;
    std::uint32_t byte_len = 0;
};

struct CounterReading {
    std::string name;
    std::uint64_t value;
    std::string_view meaning;
};

struct Diagnosis {
    std::string summary;                      // what most likely happened, in plain words
    std::vector<std::string> checks;          // what to check
    decode::Decoded port_state;
    std::vector<CounterReading> error_counters;  // non-empty readings of the port's error counters
};

struct Caps {
    std::uint32_t max_send_wr = 0, max_recv_wr = 0, max_send_sge = 0, max_recv_sge = 0, max_inline_data = 0;
};

// An asynchronous event the holder read for one of its objects (an SRQ's
// SRQ_LIMIT_REACHED, a QP's COMM_EST or QP_FATAL), decoded there from
// decode/async_event.hpp's table.
struct HeldEventReport {
    std::string event, severity, meaning;
    std::string at;  // RFC 3339 UTC, milliseconds: when the holder read it
};
std::vector<HeldEventReport> build_held_events(const Json& events);

struct QpReport {
    std::uint32_t qpn = 0;
    std::string device;
    decode::Decoded type, state, path_mtu, mig_state;
    std::uint8_t port = 0;
    std::uint32_t qkey = 0, rq_psn = 0, sq_psn = 0, dest_qpn = 0;
    decode::Flags access;
    Caps caps;
    bool sq_sig_all = false, sq_draining = false;
    AddressReport av, alt_av;
    std::uint16_t pkey_index = 0, alt_pkey_index = 0;
    std::optional<std::uint16_t> pkey;
    std::uint8_t max_rd_atomic = 0, max_dest_rd_atomic = 0, alt_port = 0;
    decode::Decoded min_rnr_timer, timeout, retry_cnt, rnr_retry, alt_timeout;
    std::optional<double> retry_exceeded_wait_us;   // nullopt: never gives up
    std::optional<double> rnr_exceeded_wait_ms;     // nullopt: never gives up
    std::uint32_t rate_limit_kbps = 0;
    std::optional<CompletionReport> last_error;
    std::uint64_t buffer_addr = 0, buffer_size = 0;
    std::uint32_t buffer_rkey = 0;
    std::optional<std::uint32_t> srq;  // the holder's SRQ it takes its receives from
    std::vector<HeldEventReport> events;  // the QP's asynchronous events, oldest first
    std::optional<std::string> xrcd;      // an xrc-recv QP: its XRC domain's file
    bool opened = false;                  // qp query --xrcd: opened by number in the domain, not made here
    std::optional<Diagnosis> diagnosis;
};

// From the holder's description of a held QP (holder.cpp `describe`).
QpReport build_qp_report(const Json& held);
CompletionReport build_completion(const Json& wc);

}  // namespace qps::report
