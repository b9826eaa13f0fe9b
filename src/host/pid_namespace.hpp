// Whether this process runs in a PID namespace below the host's (a
// container, `unshare -p`). Since Linux 5.5 the kernel's RDMA netlink shows
// every QP and rdma_cm ID of the host to every namespace (the kernel
// consumers' too), but gives a pid only for a process of the asker's own
// namespace: the others' come with neither pid nor name. `qp list`, `cm
// list` and `doctor` say so rather than count them as the kernel's.
#pragma once

#include <string>
#include <string_view>

namespace qps::host {

// The host's PID namespace has a fixed inode number (the kernel's
// PROC_PID_INIT_INO, 0xEFFFFFFC, since 3.8): /proc/self/ns/pid's inode is
// another for a process in any namespace below it, whatever /proc it sees.
constexpr unsigned long init_pid_namespace_inode = 0xEFFFFFFCUL;
// From /proc/PID/status's text: its NSpid line names the process's pid in
// each namespace from the one of that /proc's mount down, so more than one
// number means a namespace below it (a container with its own /proc shows
// one: the inode above tells it). A kernel without the line: false.
bool nested_pid_namespace(std::string_view status_text);
// This process: /proc/self/ns/pid's inode, else /proc/self/status's NSpid;
// false when neither can be read.
bool in_nested_pid_namespace();

// What a nested PID namespace does not see, in one sentence with the way
// to see it.
std::string pid_namespace_note();

}  // namespace qps::host
