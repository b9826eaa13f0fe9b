// The kernel's RDMA consumers by the name RDMA netlink gives their rdma_cm
// IDs (the module's KBUILD_MODNAME, which the kernel records as the ID's
// kern_name): what each is, and the word its dmesg lines carry. One table
// for doctor's stuck-QP findings, `qp list`'s notes and `explain --log`'s
// sources.
#pragma once

#include <array>
#include <string_view>

namespace qps::decode {

struct KernelConsumerEntry {
    std::string_view name;     // the cm_id's owner in `rdma resource show cm_id` ("nvme_rdma")
    std::string_view what;     // "NVMe over Fabrics host (nvme-rdma)"
    std::string_view log_word; // what `dmesg | grep -i WORD` keeps of its lines
    std::string_view recovery; // what it does itself when a QP fails
};

inline constexpr std::array<KernelConsumerEntry, 10> kernel_consumer_table{{
    {"nvme_rdma", "NVMe over Fabrics host (nvme-rdma)", "nvme",
     "it starts error recovery, tears its queues down and reconnects every reconnect_delay seconds until "
     "ctrl_loss_tmo gives the controller up"},
    {"nvmet_rdma", "NVMe over Fabrics target (nvmet-rdma)", "nvmet",
     "it drops the queue and waits for the host to connect again"},
    {"rpcrdma", "NFS over RDMA (rpcrdma client, svcrdma server)", "rdma",
     "the client reconnects the transport and retransmits its RPCs; the server closes the transport"},
    {"ib_iser", "iSCSI over RDMA initiator (ib_iser)", "iser",
     "it fails the connection; iscsid re-logs in after the session's recovery timeout"},
    {"ib_isert", "iSCSI over RDMA target (ib_isert)", "isert",
     "it closes the connection and waits for the initiator to log in again"},
    {"ib_srp", "SCSI RDMA Protocol initiator (ib_srp)", "srp",
     "it fails the connection and reconnects every reconnect_delay seconds (srp_remote_ports)"},
    {"ib_srpt", "SCSI RDMA Protocol target (ib_srpt)", "srpt", "it closes the channel and waits for a new login"},
    {"rds_rdma", "Reliable Datagram Sockets over RDMA (rds_rdma)", "rds", "it reconnects the RDS connection"},
    {"ksmbd", "SMB Direct server (ksmbd)", "ksmbd", "it closes the SMB Direct connection"},
    {"cifs", "SMB Direct client (cifs)", "cifs", "it reconnects the SMB session"},
}};

// The entry of `name`, or nullptr for a consumer this qpscope does not know.
constexpr const KernelConsumerEntry* find_kernel_consumer(std::string_view name)
{
    for (const auto& e : kernel_consumer_table)
        if (e.name == name)
            return &e;
    return nullptr;
}

}  // namespace qps::decode
