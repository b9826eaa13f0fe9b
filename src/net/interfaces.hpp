// The host's own IP addresses, as text (inet_ntop: "192.0.2.1", "fe80::1"
// without a scope), for telling a peer on this host from one elsewhere.
#pragma once

#include <set>
#include <string>

namespace qps::net {

// Every address of every interface (getifaddrs(3)), IPv4 and IPv6, the
// loopback's too; empty when the kernel cannot say.
std::set<std::string> local_addresses();

}  // namespace qps::net
