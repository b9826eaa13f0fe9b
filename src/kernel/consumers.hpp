// The kernel's own RDMA consumers as sysfs names them: the storage
// drivers whose QPs belong to no process (nvme-rdma first). RDMA netlink
// names a kernel QP's rdma_cm ID and its owner (`nvme_rdma`); the object
// that owner serves (an NVMe-oF controller, its target and its state)
// is only here.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace qps::kernel {

// An NVMe controller (/sys/class/nvme/nvmeN): for a fabrics controller,
// its transport ("rdma", "tcp", ...), its target address and the
// subsystem's NQN; its state as the kernel names it ("live", "resetting",
// "connecting", "deleting", "deleting (no IO)", "dead", "new").
struct NvmeController {
    std::string name;       // "nvme0"
    std::string transport;  // "rdma"; "pcie" for a local disk
    std::string state;
    std::string subsysnqn;
    std::string address;    // as sysfs writes it: "traddr=192.0.2.2,trsvcid=4420"
    std::map<std::string, std::string> address_fields;  // traddr, trsvcid, host_traddr, host_iface
    std::string reconnect_delay, ctrl_loss_tmo;  // seconds, as sysfs writes them ("off" for none); fabrics only
};

// Every controller under `root` (none when there is no such directory: no
// NVMe driver loaded). A file that cannot be read is left empty.
std::vector<NvmeController> list_nvme_controllers(const std::string& root = "/sys/class/nvme");

// "traddr=192.0.2.2,trsvcid=4420,host_traddr=192.0.2.1\n" -> its fields.
std::map<std::string, std::string> parse_fabrics_address(std::string_view text);

// An NFS mount over RDMA (the mount table's proto=rdma or rdma6): rpcrdma's
// rdma_cm ID talks to addr:port.
struct NfsMount {
    std::string source;      // "192.0.2.2:/export"
    std::string mountpoint;  // "/mnt/data" (the table's octal escapes undone)
    std::string fstype;      // "nfs", "nfs4"
    std::string addr, port;  // the server: addr= and port= (20049 by default for RDMA)
};

// The NFS mounts over RDMA among the lines of a mount table (/proc/mounts's
// format: source, mount point, type, options, ...).
std::vector<NfsMount> parse_nfs_rdma_mounts(std::string_view table);
// The same from `path` (none when it cannot be read).
std::vector<NfsMount> list_nfs_rdma_mounts(const std::string& path = "/proc/mounts");

// An iSCSI connection (/sys/class/iscsi_connection/connectionS:C) and its
// session (/sys/class/iscsi_session/sessionS): over iSER, ib_iser's
// rdma_cm ID talks to its address and port.
struct IscsiConnection {
    std::string name;        // "connection1:0"
    std::string session;     // "session1"
    std::string address, port;  // the target portal (persistent_address, persistent_port)
    std::string targetname;  // the target's IQN
    std::string state;       // the session's: "LOGGED_IN", "FAILED", "FREE"
};

// Every connection under `root` (its parent holds iscsi_connection and
// iscsi_session); none when there is no iSCSI on the host.
std::vector<IscsiConnection> list_iscsi_connections(const std::string& root = "/sys/class");

}  // namespace qps::kernel
