// The client side of the holder: connect (starting the holder if asked),
// send one request, return the reply's result or throw its error.
#pragma once

#include <chrono>

#include "src/net/interrupt.hpp"
#include "src/ops/holder_protocol.hpp"

namespace qps::ops {

struct ClientOptions {
    bool start_if_absent = false;          // `qp create` starts the holder
    std::chrono::seconds idle{600};        // idle timeout given to a new holder
};

// SIGINT/SIGTERM once the holder had the request: it carries the request
// out all the same (a create it then undoes, its reply not taken).
struct InterruptedAfterRequest : net::Interrupted {
    using net::Interrupted::Interrupted;
};

// Sends {"op": op, ...args}; returns the reply's "result". Errors the holder
// reports come back as the same exception kinds (UsageError for bad input,
// OperationError for a refused operation); an interrupt while waiting for
// the reply is InterruptedAfterRequest.
Json holder_call(const std::string& op, Json args, const ClientOptions& options = {});

}  // namespace qps::ops
