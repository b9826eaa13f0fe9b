// The dmesg lines of the kernel's RDMA storage consumers that say what
// happened to a connection (NVMe over Fabrics, NFS over RDMA, iSER, SRP),
// each from the kernel's own format string (Linux 6.1; a newer kernel's
// wording where it differs), with the state the consumer is in after it and
// what to look at. `explain --log` names each such line (topic
// kernel-event, its consumer as the source); the numbers in them (statuses,
// errnos, reject reasons) are decoded by explain's log patterns. One table:
// `explain kernel-event ID` reads the same rows.
#pragma once

#include <array>
#include <string_view>

namespace qps::decode {

struct KernelLogEvent {
    std::string_view id;        // "nvme-error-recovery"
    std::string_view consumer;  // kernel_consumer_table's name ("nvme_rdma")
    std::string_view where;     // the file and function that prints it
    std::string_view format;    // the format string, as the kernel source writes it
    std::string_view needle;    // lower-case text every such line holds: tested before the regex
    std::string_view regex;     // RE2 syntax: matches such a line (explain --log: ignoring case)
    std::string_view meaning;   // what happened, the state after it, what the consumer does next
    std::string_view next;      // what to look at
};

inline constexpr std::array<KernelLogEvent, 39> kernel_log_events{{
    // nvme-rdma, the NVMe over Fabrics host (its controller's lines start "nvme nvmeN: ").
    {"nvme-io-timeout", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_timeout()",
     "I/O %d QID %d timeout\\n (newer: I/O tag %d (%04x) opcode %#x (%s) QID %d timeout\\n)", "timeout",
     R"(\bI/O (?:tag )?\d+ (?:\(\w+\) opcode \S+ \([^)]*\) )?QID \d+ timeout\b)",
     "a command got no answer within its timeout; QID 0 is the admin queue, where the keep-alive runs, so QID 0 "
     "means the target stopped answering within KATO; on a live controller nvme-rdma starts error recovery",
     "the way to the target: `qpscope path TARGET-ADDRESS`; the target's own lines (dmesg | grep nvmet there)"},
    {"nvme-error-recovery", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_error_recovery()",
     "starting error recovery\\n", "starting error recovery", R"(\bstarting error recovery\b)",
     "the controller went from live to resetting: keep-alive stopped, its queues (and their QPs) are torn down, "
     "outstanding I/O is aborted (Host Aborted Command) or held by multipath; then it reconnects",
     "`qpscope doctor` (storage.nvme_rdma: the controller's state and target); the line before it says why (a "
     "timeout, a failed completion, a disconnect)"},
    {"nvme-keepalive-rtt", "nvme_rdma", "drivers/nvme/host/core.c nvme_keep_alive_finish()",
     "long keepalive RTT (%u ms)\\n", "long keepalive rtt", R"(\blong keepalive RTT \(\d+ ms\))",
     "a keep-alive was answered (or ended) later than its period, half of KATO: the path or the target is slow, "
     "or it ended because error recovery aborted it",
     "`qpscope path TARGET-ADDRESS` for loss and latency on the way; the target's load"},
    {"nvme-keepalive-failed", "nvme_rdma", "drivers/nvme/host/core.c nvme_keep_alive_finish()",
     "failed nvme_keep_alive_end_io error=%d\\n", "nvme_keep_alive_end_io", R"(\bfailed nvme_keep_alive_end_io error=\d+)",
     "a keep-alive command failed; error= is a blk_status_t (10: I/O error, the command was aborted by error "
     "recovery; 4: transport error); no keep-alive is sent until the controller reconnects",
     "explain blk-status N; the lines around it (I/O timeout, error recovery)"},
    {"nvme-reconnecting", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_reconnect_or_remove()",
     "Reconnecting in %d seconds...\\n", "reconnecting in", R"(\bReconnecting in \d+ seconds\.\.\.)",
     "the controller is connecting: it tries again after reconnect_delay seconds, until ctrl_loss_tmo (600 s by "
     "default) gives it up and removes it; I/O waits (or fails after fast_io_fail_tmo)",
     "`qpscope doctor` (storage.nvme_rdma); `qpscope path TARGET-ADDRESS`: does RoCE reach the target?"},
    {"nvme-reconnect-failed", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_reconnect_ctrl_work()",
     "Failed reconnect attempt %d\\n (newer: Failed reconnect attempt %d/%d\\n)", "failed reconnect attempt",
     R"(\bFailed reconnect attempt \d+)",
     "a reconnect failed (the lines before it say how: no route, rejected, no answer); it tries again after "
     "reconnect_delay until ctrl_loss_tmo",
     "the line before it; `qpscope path TARGET-ADDRESS`; on the target: is nvmet's port listening (`rdma "
     "resource show cm_id`: nvmet_rdma LISTEN)?"},
    {"nvme-reconnected", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_reconnect_ctrl_work()",
     "Successfully reconnected (%d attempts)\\n", "successfully reconnected", R"(\bSuccessfully reconnected \(\d+ attempts?\))",
     "the controller is live again after that many attempts: held I/O resumes", "nothing: `qpscope doctor` says live"},
    {"nvme-new-ctrl", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_create_ctrl()",
     "new ctrl: NQN \"%s\", addr %pISpcs\\n", "new ctrl: nqn", R"(\bnew ctrl: NQN "[^"]*", addr \S+)",
     "a controller over RDMA connected for the first time: it is live, its namespaces appear",
     "`qpscope qp list` names its QPs (nvme_rdma, the target, the controller)"},
    {"nvme-removing-ctrl", "nvme_rdma", "drivers/nvme/host/core.c nvme_do_delete_ctrl()",
     "Removing ctrl: NQN \"%s\"\\n", "removing ctrl: nqn", R"(\bRemoving ctrl: NQN "[^"]*")",
     "the controller is deleting: a disconnect was asked for, or ctrl_loss_tmo ran out while it could not "
     "reconnect; its namespaces go away and their I/O fails",
     "if nobody disconnected it: the reconnect lines before it; connect again once `qpscope path` reaches the target"},
    {"nvme-connect-failed", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_alloc_queue()",
     "rdma connection establishment failed (%d)\\n", "connection establishment failed",
     R"(\brdma connection establishment failed \(-?\d+\))",
     "the RDMA connection of a queue did not come up; -104 (ECONNRESET) stands for an address, route or "
     "connect error, unreachable or rejected (the rdma_cm event), -110 for no answer",
     "`qpscope path TARGET-ADDRESS`; `qpscope cm list` on both hosts; a Connect rejected line names the reason"},
    {"nvme-connect-rejected", "nvme_rdma", "drivers/nvme/host/rdma.c nvme_rdma_conn_rejected()",
     "Connect rejected: status %d (%s) nvme status %d (%s).\\n", "connect rejected", R"(\bConnect rejected: status -?\d+)",
     "the target (or the fabric) refused the connection: status is the IB CM reject reason (iWARP: an errno), "
     "nvme status the target's own reason (nvme-cm-status); status 8 invalid service ID: nothing listens on that "
     "port",
     "on the target: is nvmet's port enabled on that address and port (`rdma resource show cm_id`)?"},
    {"nvme-connect-command-failed", "nvme_rdma", "drivers/nvme/host/fabrics.c nvmf_log_connect_error()",
     "Connect command failed, error wo/DNR bit: %d\\n (or: Connect command failed, errno: %d\\n)",
     "connect command failed", R"(\bConnect command failed, (?:error wo/DNR bit|errno): -?\d+)",
     "the RDMA connection came up but the NVMe Connect command failed: the number is an NVMe status in decimal "
     "(nvme-status; 881 Host Aborted Command: it timed out) or a negative errno",
     "explain nvme-status N; on the target: dmesg | grep nvmet"},
    {"nvme-connect-not-allowed", "nvme_rdma", "drivers/nvme/host/fabrics.c nvmf_log_connect_error()",
     "Connect for subsystem %s is not allowed, hostnqn: %s\\n", "is not allowed, hostnqn",
     R"(\bConnect for subsystem \S+ is not allowed, hostnqn: \S+)",
     "the subsystem does not allow this host NQN (CONNECT_INVALID_HOST)",
     "on the target: add the host NQN to the subsystem's allowed_hosts, or set attr_allow_any_host"},
    {"nvme-failfast-expired", "nvme_rdma", "drivers/nvme/host/core.c nvme_failfast_work()", "failfast expired\\n",
     "failfast expired", R"(\bfailfast expired\b)",
     "fast_io_fail_tmo passed while the controller was connecting: its queued I/O now fails instead of waiting",
     "the reconnect lines; `qpscope path TARGET-ADDRESS`"},
    {"nvme-no-usable-path", "nvme_rdma", "drivers/nvme/host/multipath.c nvme_ns_head_submit_bio()",
     "no usable path - requeuing I/O\\n", "no usable path", R"(\bno usable path - requeuing I/O\b)",
     "multipath holds the namespace's I/O: no controller path is live now, one may come back",
     "`qpscope doctor`: which controller is not live and why"},
    {"nvme-no-available-path", "nvme_rdma", "drivers/nvme/host/multipath.c nvme_ns_head_submit_bio()",
     "no available path - failing I/O\\n", "no available path", R"(\bno available path - failing I/O\b)",
     "no controller path is left for the namespace (all deleting or gone): its I/O fails",
     "the Removing ctrl lines; connect again once the target is reachable"},
    // nvmet-rdma, the NVMe over Fabrics target ("nvmet: ", "nvmet_rdma: ").
    {"nvmet-keepalive-expired", "nvmet_rdma", "drivers/nvme/target/core.c nvmet_keep_alive_timer()",
     "ctrl %d keep-alive timer (%d seconds) expired!\\n", "keep-alive timer", R"(\bctrl \d+ keep-alive timer \(\d+ seconds\) expired!)",
     "the target heard no keep-alive (nor other commands) from the host within KATO: it fails the controller",
     "the way from the host: `qpscope path` between the two; the host's own lines (I/O timeout, error recovery)"},
    {"nvmet-fatal-error", "nvmet_rdma", "drivers/nvme/target/core.c nvmet_fatal_error_handler()",
     "ctrl %d fatal error occurred!\\n", "fatal error occurred", R"(\bctrl \d+ fatal error occurred!)",
     "the target deletes that controller and its queues; the host sees a disconnect and must connect again",
     "the line before it (keep-alive expired, a failed completion)"},
    {"nvmet-ctrl-created", "nvmet_rdma", "drivers/nvme/target/fabrics-cmd.c nvmet_execute_admin_connect()",
     "creating %s controller %d for subsystem %s for NQN %s%s%s.\\n (newer: Created %s controller ...)",
     "for subsystem", R"(\b(?:creating|Created) (?:nvm|discovery) controller \d+ for subsystem \S+ for NQN \S+)",
     "a host connected its admin queue: a new controller of the subsystem (after an outage: the host reconnected)",
     "nothing"},
    {"nvmet-qp-event", "nvmet_rdma", "drivers/nvme/target/rdma.c nvmet_rdma_qp_event()",
     "received IB QP event: %s (%d)\\n", "received ib qp event", R"(\breceived IB QP event: [^(]+\(\d+\))",
     "an asynchronous event of one of the target's QPs (the words are ib_event_msg()'s: QP fatal error, QP "
     "access error, ...); nvmet takes no action of its own",
     "a fatal or access error: the queue's next completion fails; the host's lines"},
    {"nvmet-queue-connect-failed", "nvmet_rdma", "drivers/nvme/target/rdma.c nvmet_rdma_queue_connect_fail()",
     "failed to connect queue %d\\n", "failed to connect queue", R"(\bfailed to connect queue \d+$)",
     "a queue the host asked for did not connect (rejected, unreachable or a connect error): it is released",
     "the host's lines for the same moment"},
    // rpcrdma: NFS over RDMA, client (rpcrdma) and server (svcrdma); the stall itself is sunrpc's.
    {"nfs-server-not-responding", "rpcrdma", "net/sunrpc/clnt.c rpc_check_timeout()",
     "%s: server %s not responding, still trying\\n (soft mounts: ..., timed out\\n)", "not responding",
     R"(\bserver \S+ not responding, (?:still trying|timed out))",
     "an NFS server gave no answer within the mount's timeo/retrans (over RDMA as over TCP): a hard mount retries "
     "for ever, a soft one fails the call; over RDMA the transport reconnects meanwhile",
     "`qpscope qp list` (rpcrdma's QPs and the mount they serve); `qpscope path SERVER`"},
    {"nfs-server-ok", "rpcrdma", "net/sunrpc/clnt.c call_decode()", "%s: server %s OK\\n", "server ", R"(\bserver \S+ OK$)",
     "the NFS server answered again after not responding", "nothing"},
    {"rpcrdma-removing-device", "rpcrdma", "net/sunrpc/xprtrdma/verbs.c rpcrdma_cm_event_handler()",
     "rpcrdma: removing device %s for %pISpc\\n", "rpcrdma: removing device", R"(\brpcrdma: removing device \S+ for \S+)",
     "the RDMA device under an NFS mount is being removed (DEVICE_REMOVAL): the transport disconnects",
     "`qpscope watch` or `rdma dev`: was the device removed or its driver reloaded?"},
    {"rpcrdma-frwr-unsupported", "rpcrdma", "net/sunrpc/xprtrdma/frwr_ops.c frwr_query_device()",
     "rpcrdma: 'frwr' mode is not supported by device %s\\n", "mode is not supported by device",
     R"(\brpcrdma: 'frwr' mode is not supported by device \S+)",
     "the device cannot do fast registration (no memory management extensions): NFS over RDMA cannot use it",
     "`qpscope explain device-cap` of the device's capabilities (MEM_MGT_EXTENSIONS)"},
    {"rpcrdma-backchannel-overflow", "rpcrdma", "net/sunrpc/xprtrdma/backchannel.c rpcrdma_bc_receive_call()",
     "RPC/RDMA backchannel overflow\\n", "backchannel overflow", R"(\bRPC/RDMA backchannel overflow\b)",
     "the server sent more NFSv4.1 callbacks than the client's backchannel holds: the connection is dropped",
     "the mount's reconnects; the server's callback load"},
    {"svcrdma-reducing-depth", "rpcrdma", "net/sunrpc/xprtrdma/svc_rdma_transport.c svc_rdma_accept()",
     "svcrdma: reducing receive depth to %d\\n (or: reducing send depth)", "svcrdma: reducing",
     R"(\bsvcrdma: reducing (?:receive|send) depth to \d+)",
     "the NFS server's device allows fewer work requests per QP (max_qp_wr) than svcrdma wants: it uses fewer",
     "`qpscope devices` (max_qp_wr)"},
    // ib_iser, the iSCSI over RDMA initiator ("iser: FUNCTION: "), and the iSCSI transport lines it causes.
    {"iser-completion-failed", "ib_iser", "drivers/infiniband/ulp/iser/iser_verbs.c iser_err_comp()",
     "%s failure: %s (%d) vend_err %#x\\n", "iser_err_comp", R"(\biser_err_comp: \S+ failure: )",
     "a work completion of an iSER connection failed (the status and vendor error follow): the connection fails "
     "(iSCSI error 1011) and iscsid starts session recovery",
     "the status (explain wc-status); `qpscope path TARGET`"},
    {"iser-qp-event", "ib_iser", "drivers/infiniband/ulp/iser/iser_verbs.c iser_qp_event_callback()",
     "qp event %s (%d)\\n", "qp event", R"(\biser_qp_event_callback: qp event [^(]+\(\d+\))",
     "an asynchronous event of an iSER QP (ib_event_msg()'s words); iser takes no action of its own", "the lines after it"},
    {"iscsi-conn-error", "ib_iser", "drivers/scsi/scsi_transport_iscsi.c iscsi_conn_error_event()",
     "detected conn error (%d)\\n", "detected conn error", R"(\bdetected conn error \(\d+\))",
     "an iSCSI connection failed (the number is an iscsi-error: 1011 the connection failed, 1022 a ping timed "
     "out); iscsid tries to log in again until the session's replacement_timeout",
     "explain iscsi-error N; `iscsiadm -m session -P 1`"},
    {"iscsi-ping-timeout", "ib_iser", "drivers/scsi/libiscsi.c iscsi_check_transport_timeouts()",
     "ping timeout of %d secs expired, recv timeout %d, last rx %lu, last ping %lu, now %lu\\n", "ping timeout of",
     R"(\bping timeout of \d+ secs expired\b)",
     "the target did not answer a NOP-Out ping: the connection fails (iSCSI error 1022)", "`qpscope path TARGET`"},
    {"iscsi-recovery-timeout", "ib_iser", "drivers/scsi/scsi_transport_iscsi.c session_recovery_timedout()",
     "session recovery timed out after %d secs\\n", "session recovery timed out",
     R"(\bsession recovery timed out after \d+ secs)",
     "the session did not come back within replacement_timeout: I/O to its disks now fails",
     "`iscsiadm -m session`; `qpscope path TARGET`"},
    // ib_isert, the iSCSI over RDMA target ("isert: FUNCTION: ").
    {"isert-completion-failed", "ib_isert", "drivers/infiniband/ulp/isert/ib_isert.c isert_print_wc()",
     "%s failure: %s (%d) vend_err %x\\n", "isert_print_wc", R"(\bisert_print_wc: [a-z ]+ failure: )",
     "a work completion of an iSER target connection failed: the target drops and reinstates the connection",
     "the status (explain wc-status); the initiator's lines"},
    {"isert-connect-failed", "ib_isert", "drivers/infiniband/ulp/isert/ib_isert.c isert_cma_handler()",
     "failed handle connect request %d\\n", "failed handle connect request", R"(\bfailed handle connect request -?\d+)",
     "the target refused a connect request (it sent a reject, consumer defined): the number is an errno",
     "the target's resources and portal configuration"},
    // ib_srp, the SCSI RDMA Protocol initiator ("scsi hostN: ib_srp: "), and scsi_transport_srp.
    {"srp-completion-failed", "ib_srp", "drivers/infiniband/ulp/srp/ib_srp.c srp_handle_qp_err()",
     "failed %s status %s (%d) for CQE %p\\n", "for cqe", R"(\bfailed (?:RECV|SEND|INV RKEY|FAST REG) status .* for CQE )",
     "a work completion of an SRP channel failed: the transport-layer error timers start (fast_io_fail_tmo, "
     "dev_loss_tmo) and the initiator reconnects every reconnect_delay",
     "the status (explain wc-status); `cat /sys/class/srp_remote_ports/*/state`"},
    {"srp-login-rejected", "ib_srp", "drivers/infiniband/ulp/srp/ib_srp.c srp_rdma_cm_rej_handler()",
     "SRP LOGIN REJECTED, reason 0x%08x\\n (IB CM: SRP LOGIN from %pI6 to %pI6 REJECTED, reason 0x%08x\\n)",
     "rejected, reason", R"(\bSRP LOGIN (?:from \S+ to \S+ )?REJECTED, reason 0x[0-9a-f]+)",
     "the SRP target refused the login (the reason is an srp-login-reject)", "explain srp-login-reject N; the target's ACLs"},
    {"srp-connection-closed", "ib_srp", "drivers/infiniband/ulp/srp/ib_srp.c srp_rdma_cm_handler()",
     "connection closed\\n (after DREQ received - connection closed\\n or received DREQ\\n)", "ib_srp: ",
     R"(\bib_srp: (?:connection closed|DREQ received - connection closed|received DREQ)$)",
     "the target disconnected the SRP channel: the error timers start and the initiator reconnects",
     "`cat /sys/class/srp_remote_ports/*/state`; the target's lines"},
    {"srp-reconnect-failed", "ib_srp", "drivers/scsi/scsi_transport_srp.c srp_reconnect_work()",
     "reconnect attempt %d failed (%d)\\n", "reconnect attempt", R"(\breconnect attempt \d+ failed \(-?\d+\))",
     "an SRP reconnect failed (the second number is an errno); the next waits reconnect_delay, longer after 10 "
     "failures", "`qpscope path TARGET`"},
    {"srp-io-fail-tmo", "ib_srp", "drivers/scsi/scsi_transport_srp.c rport_fast_io_fail_timedout()",
     "fast_io_fail_tmo expired for SRP %s / %s.\\n (and: dev_loss_tmo expired for SRP %s / %s.\\n)", "tmo expired for srp",
     R"(\b(?:fast_io_fail|dev_loss)_tmo expired for SRP \S+ / \S+)",
     "the SRP port stayed down: after fast_io_fail_tmo its I/O fails fast; after dev_loss_tmo the port is lost and "
     "its SCSI host removed",
     "`qpscope path TARGET`; log in again (srp_daemon) once the target is reachable"},
}};

// The row of `id`, or nullptr.
constexpr const KernelLogEvent* find_kernel_log_event(std::string_view id)
{
    for (const auto& e : kernel_log_events)
        if (e.id == id)
            return &e;
    return nullptr;
}

}  // namespace qps::decode
