// Name resolution with a bound: getaddrinfo(3) waits on the resolver
// (resolv.conf's servers, its timeouts and attempts: 10 s and more when a
// server does not answer) with no way to stop it. resolve() answers a
// number at once (AI_NUMERICHOST: no resolver), and runs getaddrinfo for a
// name in a child process whose answer it waits for until a deadline, or
// SIGINT/SIGTERM (net/interrupt.hpp), killing the child then. Not a thread:
// the process stays single-threaded, and glibc leaves the cancellation
// bracket out of every later system call (rxe's doorbell write(), once a
// message). In a process that has threads already, glibc's asynchronous
// getaddrinfo_a(3) instead.
#pragma once

#include <chrono>
#include <memory>
#include <netdb.h>
#include <string>

namespace qps::net {

using AddrInfo = std::unique_ptr<addrinfo, void (*)(addrinfo*)>;

// The addresses of host (and service: a port number, or "") for hints,
// within `timeout`. Throws:
//   TimeoutError  "resolving "NAME": no answer from the resolver within
//                  2000 ms (its servers: /etc/resolv.conf)"
//   UsageError    "cannot resolve host "NAME": Name or service not known"
//   OperationError EAI_AGAIN (a temporary failure), named as such
//   Interrupted   on SIGINT/SIGTERM
// `what` names the host in the messages ("host", "the server address").
AddrInfo resolve(const std::string& host, const std::string& service, const addrinfo& hints,
                 std::chrono::milliseconds timeout, const std::string& what = "host");

// resolve()'s way for a name in a single-threaded process, whatever the
// process is: getaddrinfo in a child, its list copied back (its unit test
// reaches it here; a test binary may have threads).
AddrInfo resolve_in_child_process(const std::string& host, const std::string& service, const addrinfo& hints,
                                  std::chrono::milliseconds timeout);

}  // namespace qps::net
