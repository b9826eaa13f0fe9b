// The exit codes of both binaries, qpscope and qpscope-mesh, in one table:
// one outcome, one code. Documented in qpscope(1), qpscope-mesh(1), each
// binary's --help footer and README.md; change them all together.
#pragma once

namespace qps {

enum ExitCode : int {
    exit_ok = 0,         // success (qpscope-mesh: every pair passed and met --expect)
    exit_failed = 1,     // the operation failed (qpscope-mesh: a pair failed or missed --expect)
    exit_usage = 2,      // bad usage or input (qpscope-mesh: rank 0's command line)
    exit_timeout = 3,    // a peer was lost: it died, hung or did not answer in time
                         // (qpscope: the peer; qpscope-mesh: a rank, or rank 0 for the others)
    exit_interrupted = 4,  // SIGINT or SIGTERM ended the command or the run (both binaries;
                           // qpscope ports --watch, which runs until then, exits 0)
};

}  // namespace qps
