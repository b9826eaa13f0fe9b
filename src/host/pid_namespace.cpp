#include "src/host/pid_namespace.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace qps::host {

bool nested_pid_namespace(std::string_view status_text)
{
    std::istringstream in{std::string(status_text)};
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("NSpid:", 0) != 0)
            continue;
        std::istringstream fields(line.substr(6));
        std::string pid;
        int n = 0;
        while (fields >> pid)
            ++n;
        return n > 1;
    }
    return false;
}

bool in_nested_pid_namespace()
{
    struct stat ns {};
    if (::stat("/proc/self/ns/pid", &ns) == 0)
        return ns.st_ino != init_pid_namespace_inode;
    std::ifstream in("/proc/self/status");
    if (!in)
        return false;
    std::ostringstream text;
    text << in.rdbuf();
    return nested_pid_namespace(text.str());
}

std::string pid_namespace_note()
{
    return "this runs in a PID namespace below the host's: the kernel shows every QP and rdma_cm ID of the host but "
           "gives pids only for this namespace's processes, so the others' have no pid or command here; run qpscope "
           "on the host (or `nsenter -t 1 -p qpscope ...`) to name them";
}

}  // namespace qps::host
