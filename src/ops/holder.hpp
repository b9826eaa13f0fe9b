// The holder process: owns device contexts, PDs, CQs, MRs and QPs on behalf
// of one user, and serves `qpscope qp ...` commands over a private UNIX
// socket (see holder_protocol.hpp). It exits after the destroy of its last
// QP, on `qp destroy --all`, on SIGTERM, or after an idle timeout, and
// releases every verbs object on the way out.
#pragma once

#include <chrono>
#include <string>

namespace qps::ops {

struct HolderOptions {
    std::string dir;                              // private directory of the socket
    std::chrono::seconds idle{600};               // exit after this long without a request
};

// Runs the holder in this process until it exits; returns the exit code.
int run_holder(const HolderOptions& options);

}  // namespace qps::ops
