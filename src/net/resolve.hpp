// Name resolution with a bound: getaddrinfo(3) waits on the resolver
// (resolv.conf's servers, its timeouts and attempts: 10 s and more when a
// server does not answer) with no way to stop it. resolve() runs glibc's
// asynchronous getaddrinfo_a(3) and waits for it until a deadline, or
// SIGINT/SIGTERM (net/interrupt.hpp).
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

}  // namespace qps::net
