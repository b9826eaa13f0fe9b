// Port error counters by their sysfs file name: what each counts, how bad
// a rise is, and what to check. One table for the QP diagnosis (`qp
// query`, `qp post`), `doctor`'s port.counters and `explain`.
//
// Names as the kernel writes them:
//   counters/    IB PortCounters (drivers/infiniband/core/sysfs.c; IBA 16.1.3.5)
//   hw_counters/ rxe: drivers/infiniband/sw/rxe/rxe_hw_counters.c;
//                mlx5: drivers/infiniband/hw/mlx5/counters.c (Q counters,
//                congestion counters)
// A name in both (link_downed: rxe's hw_counters and IB's counters/) means
// the same.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace qps::decode {

enum class CounterSeverity {
    fail,   // the link or the port itself: a rise is a fault
    warn,   // retries, sequence errors, RNR, drops: traffic suffered
    info,   // congestion signalling: a rise is how ECN works
};

struct ErrorCounterInfo {
    std::string_view name;
    CounterSeverity severity;
    std::string_view meaning;  // what one count is
    std::string_view check;    // what to look at when it rises
};

inline constexpr std::array<ErrorCounterInfo, 40> error_counter_table{{
    // IB PortCounters (counters/)
    {"symbol_error", CounterSeverity::fail, "physical symbol errors on the link",
     "a marginal cable or transceiver: reseat or replace it, check the switch port's counters too"},
    {"link_error_recovery", CounterSeverity::fail, "link error recoveries (the link retrained)",
     "a marginal cable or transceiver, or a flapping switch port"},
    {"link_downed", CounterSeverity::fail, "times the link went down",
     "cable, transceiver and switch port; dmesg for the driver's link events"},
    {"port_rcv_errors", CounterSeverity::fail, "packets received with errors (CRC, length, malformed)",
     "the cable and the sender's port; symbol_error usually rises with it"},
    {"port_rcv_remote_physical_errors", CounterSeverity::warn,
     "packets received with an EBP delimiter: corrupted before they reached this link",
     "the links upstream of this port (the switch's counters)"},
    {"port_rcv_switch_relay_errors", CounterSeverity::warn, "packets a switch could not relay",
     "the switch's forwarding tables (the subnet manager's routing)"},
    {"port_xmit_discards", CounterSeverity::warn, "packets discarded on send (port down or congested)",
     "congestion towards the peer, or a port that went down mid-transfer"},
    {"port_xmit_constraint_errors", CounterSeverity::warn, "packets not sent because of partition or filter rules",
     "the P_Key partitions of this port and its peer"},
    {"port_rcv_constraint_errors", CounterSeverity::warn, "packets dropped on receive by partition or filter rules",
     "the P_Key partitions of this port and its peer"},
    {"local_link_integrity_errors", CounterSeverity::fail, "local link integrity errors (too many physical errors)",
     "the cable or transceiver of this link"},
    {"excessive_buffer_overrun_errors", CounterSeverity::fail, "receive buffer overruns on the link",
     "flow control between this port and its link peer"},
    {"VL15_dropped", CounterSeverity::warn, "subnet management packets dropped",
     "the subnet manager's traffic rate, or this port's SMA"},
    {"port_xmit_wait", CounterSeverity::info, "ticks the port had data to send but no credits (congestion)",
     "congestion in the fabric towards the peers; a steady rise is a hot spot"},
    // rxe (hw_counters/)
    {"retry_exceeded_err", CounterSeverity::warn, "requests that ended in transport retry counter exceeded",
     "a peer QP that is gone or never answered: its host, its QP state, dest-qpn and dgid"},
    {"retry_rnr_exceeded_err", CounterSeverity::warn, "requests that ended in RNR retry counter exceeded",
     "a peer that posts no receives in time: its receive queue, min-rnr-timer, rnr-retry"},
    {"completer_retry_err", CounterSeverity::warn, "retries the requester made after an ACK timeout",
     "a peer that does not answer: is its QP still there (qp list --stalled)? rxe retries forever at "
     "retry-cnt 7"},
    {"rcvd_rnr_err", CounterSeverity::warn, "RNR NAKs received (the peer had no receive posted)",
     "the peer's receive posting"},
    {"send_rnr_err", CounterSeverity::warn, "RNR NAKs sent (this side had no receive posted)",
     "this host's receivers: post receives before the peer sends"},
    {"rcvd_seq_err", CounterSeverity::warn, "sequence-error NAKs received (PSN mismatch or lost packets)",
     "packet loss on the path, or PSNs that do not agree between the two QPs"},
    {"out_of_seq_request", CounterSeverity::warn, "requests received with an unexpected PSN",
     "packet loss on the path, or PSNs that do not agree between the two QPs"},
    {"duplicate_request", CounterSeverity::warn, "duplicate requests received (the peer retried)",
     "lost or late ACKs towards the peer"},
    {"send_err", CounterSeverity::warn, "packets the device failed to send",
     "the netdev (ip -s link), its MTU against the RDMA MTU"},
    // mlx5 Q counters and congestion (hw_counters/)
    {"out_of_buffer", CounterSeverity::warn, "packets dropped for lack of a posted receive (shared receive queue)",
     "the receivers' posting rate"},
    {"out_of_sequence", CounterSeverity::warn, "packets received out of sequence",
     "packet loss on the path (RoCE: PFC or ECN configuration)"},
    {"packet_seq_err", CounterSeverity::warn, "NAK sequence errors received", "packet loss on the path"},
    {"local_ack_timeout_err", CounterSeverity::warn, "ACK timeouts on this side's requests",
     "a peer that does not answer, or loss on the path; the QP's timeout"},
    {"rnr_nak_retry_err", CounterSeverity::warn, "requests that ended in RNR retry counter exceeded",
     "the peer's receive posting, min-rnr-timer, rnr-retry"},
    {"implied_nak_seq_err", CounterSeverity::warn, "implied NAK sequence errors (read/atomic responses lost)",
     "packet loss on the path"},
    {"req_cqe_error", CounterSeverity::warn, "requester completions with an error",
     "the owners' completion statuses (qpscope qp query on a held QP)"},
    {"resp_cqe_error", CounterSeverity::warn, "responder completions with an error",
     "the owners' completion statuses"},
    {"req_remote_invalid_request", CounterSeverity::warn, "requests the remote side rejected as invalid",
     "the peer QP's access flags and max-dest-rd-atomic"},
    {"req_remote_access_errors", CounterSeverity::warn, "requests the remote side rejected for access",
     "rkeys and remote address ranges"},
    {"resp_remote_access_errors", CounterSeverity::warn, "requests this side rejected for access",
     "the rkeys and ranges the peers use against this host"},
    {"resp_local_length_error", CounterSeverity::warn, "receives too small for the message that arrived",
     "the receive buffer sizes against the senders' message sizes"},
    {"req_transport_retries_exceeded", CounterSeverity::warn,
     "requests that ended in transport retry counter exceeded",
     "a peer QP that is gone or never answered: its host, its QP state, dest-qpn and dgid"},
    {"req_rnr_retries_exceeded", CounterSeverity::warn,
     "requests that ended in RNR retry counter exceeded",
     "the peer's receive posting, min-rnr-timer, rnr-retry"},
    {"roce_adp_retrans", CounterSeverity::warn, "adaptive retransmissions (RoCE)", "packet loss on the path"},
    {"roce_slow_restart", CounterSeverity::warn, "slow restarts after retransmission timeouts (RoCE)",
     "packet loss on the path"},
    {"np_cnp_sent", CounterSeverity::info, "congestion notification packets sent (ECN marks received)",
     "the fabric's congestion: ECN marking thresholds on the switches"},
    {"rp_cnp_handled", CounterSeverity::info, "congestion notification packets handled (rate reduced)",
     "the fabric's congestion towards the peers"},
}};

// The entry for a counter file name (mlx5's switchdev vport_<name> as
// <name>); nullopt for counters that are not errors (sent_pkts,
// rdma_sends, ...) and for names we do not know.
std::optional<ErrorCounterInfo> error_counter(std::string_view name);

std::string_view severity_name(CounterSeverity s);

}  // namespace qps::decode
