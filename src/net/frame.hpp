// The out-of-band exchange's wire format: pure functions, no sockets, so the
// Channel and the fuzzer decode with the very same code.
//
// Every message is one frame:
//
//   offset 0  4 bytes  magic "QPSX"
//   offset 4  4 bytes  body length, unsigned big-endian, 2..max_frame_bytes
//   offset 8  N bytes  body: one JSON object in UTF-8, with a string "type"
//
// Why a length prefix and not lines: the reader knows how much to allocate
// and read before it parses, so the bound is checked before any byte of the
// body is buffered, and no byte of the body needs escaping. Why a magic: a
// stray program on the port (an HTTP probe, perftest's text exchange) shows
// up as "not a qpscope exchange frame" with its first bytes, instead of as a
// nonsensical 1 GB length. The frame format never changes between exchange
// versions, so two versions can always read each other's hello and name the
// mismatch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "src/json.hpp"

namespace qps::net {

inline constexpr std::array<char, 4> frame_magic{'Q', 'P', 'S', 'X'};
inline constexpr std::size_t frame_header_bytes = 8;
inline constexpr std::size_t min_frame_bytes = 2;  // "{}"
inline constexpr std::size_t max_frame_bytes = 64 * 1024;
// Objects and arrays nest at most this deep in a message body.
inline constexpr int max_json_depth = 8;

// The whole frame for `message`; throws OperationError when the body would
// exceed max_frame_bytes. Strings that are not valid UTF-8 are replaced by
// U+FFFD, never sent raw.
std::string encode_frame(const Json& message);

// Checks the magic and the length of a frame header; returns the body
// length. Throws OperationError naming the bytes or the length.
std::uint32_t decode_frame_header(std::span<const std::uint8_t, frame_header_bytes> header);

// Parses a frame body strictly: valid UTF-8 JSON, nothing after the value,
// no duplicate member names, nesting ≤ max_json_depth, an object whose
// "type" is a non-empty string. Throws OperationError naming the problem.
Json decode_frame_body(std::string_view body);

// A complete frame (header and body, nothing more) → message; what a
// receive would produce from these bytes. For the fuzzer and the tests.
Json decode_frame(std::string_view bytes);

// Peer-supplied bytes made safe for a one-line message: the text rule of
// src/util/outside_bytes.hpp (control characters and ill-formed bytes
// escaped: \n, \e, \xNN); longer input is cut to `max` bytes (a character
// cut in two shows as its bytes) and marked with "...".
std::string printable(std::string_view bytes, std::size_t max = 64);

// A JSON value quoted for an error message: compact, ASCII only, cut to
// about `max` characters.
std::string quote(const Json& value, std::size_t max = 64);

}  // namespace qps::net
