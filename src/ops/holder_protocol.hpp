// The holder's wire protocol and where its socket lives.
//
// Verbs objects die with the process that made them, so `qp create`,
// `qp modify` and `qp query`, typed as separate commands, talk to a per-user
// holder process that owns the objects. One request per connection over a
// UNIX stream socket: a 4-byte big-endian length, then that many bytes of
// JSON. Requests and replies are bounded (max_message_bytes); every read and
// write has a deadline. A create's reply is taken with one byte back (the
// acknowledgement): a create whose client left before taking its reply
// (interrupted) is undone, so no QP is held that nobody was told of.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "src/json.hpp"

namespace qps::ops {

inline constexpr std::uint32_t protocol_version = 3;  // 2: a create is acknowledged; 3: post --recv, --count, events
inline constexpr std::size_t max_message_bytes = 1 << 20;
inline constexpr std::chrono::milliseconds io_timeout{10000};

// Writes one framed message; throws SystemError / OperationError.
void send_message(int fd, const Json& message, std::chrono::milliseconds timeout = io_timeout);
// Reads one framed message; throws on timeout, EOF, oversize or bad JSON.
Json receive_message(int fd, std::chrono::milliseconds timeout = io_timeout);

// The byte a client sends back once it holds a create's reply.
inline constexpr char create_acknowledged = 'A';
// Sends the acknowledgement; throws as send_message does.
void send_acknowledgement(int fd);
// Waits for the acknowledgement: false when the client closed, reset or
// was silent for io_timeout instead.
bool receive_acknowledgement(int fd);

// The private directory holding the socket: $QPSCOPE_HOLDER_DIR, else
// $XDG_RUNTIME_DIR/qpscope, else /tmp/qpscope-UID.
std::string holder_dir();
// Creates the directory (mode 0700) if needed and checks that it is a real
// directory owned by this user and reachable by nobody else; throws a
// UsageError naming the problem otherwise.
void ensure_private_dir(const std::string& dir);
std::string socket_path(const std::string& dir);

}  // namespace qps::ops
