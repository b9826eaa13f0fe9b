// The out-of-band exchange's messages and their strict parsers.
//
// Each message is a JSON object with a "type" and exactly its own members:
// an unknown or missing member, a wrong JSON type or a value out of range
// is an OperationError naming the message, the member and the value, e.g.
//   endpoint message: member "psn" is 16777216, must be 0..16777215 (24 bits)
//
//   {"type":"hello","version":2,"tool":"qpscope","test":"ping-pong","role":"client"}
//   {"type":"params","params":{"size":64,"op":"send", ...},      flat: scalars only
//    "timeout_ms":10000}                                          the side's --timeout (heartbeat.hpp)
//   {"type":"endpoint","qpn":291,"psn":1193046,"lid":0,
//    "gid":"fe80:0000:0000:0000:5054:00ff:fe12:3456","gid_index":1,
//    "rkey":4660,"addr":140737488355328,"size":4096,"mtu":1024,"max_dest_rd_atomic":16}
//   {"type":"ready"}
//   {"type":"alive"}                                              a heartbeat during a run (heartbeat.hpp)
//   {"type":"results","results":{...}}                            any object
//   {"type":"error","message":"..."}                              the peer gives up
//   {"type":"stalled","message":"...","evidence":{...}}            a run stalled while the exchange answers:
//                                                                  why, and what this side's port counted;
//                                                                  the peer answers with its own evidence
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/net/endpoint.hpp"
#include "src/net/frame.hpp"

namespace qps::net {

// Bumped whenever a message changes; the frame format, the hello's "type",
// "tool" and "version" members and the error message never change.
// 2: the endpoint carries max_dest_rd_atomic; 3: params carry threads; 4: heartbeats during a run;
// 5: the test "path"; 6: the "stalled" message; 7: params carry "connection" (manual or rdma_cm,
// which both sides compare) and "tclass"; 8: path's params carry "sl", "flow_label", "pkey_index",
// "ack_timeout" and "retry_cnt"; 9: params carry the side's --timeout ("timeout_ms"): both sides beat
// at a quarter of the smaller one
inline constexpr std::uint32_t oob_version = 10;
inline constexpr std::string_view oob_tool = "qpscope";
inline constexpr std::array<std::string_view, 3> oob_tests{"ping-pong", "bw", "path"};
inline constexpr std::array<std::string_view, 2> oob_roles{"client", "server"};
inline constexpr std::array<std::uint32_t, 5> oob_mtus{256, 512, 1024, 2048, 4096};
inline constexpr std::size_t max_error_message_bytes = 1024;
// What a side's --timeout may be (the command line's 0.1 .. 86400 s).
inline constexpr std::uint64_t min_timeout_ms = 100, max_timeout_ms = 86'400'000;

struct Hello {
    std::uint32_t version = oob_version;
    std::string tool{oob_tool};
    std::string test;  // "ping-pong" | "bw" | "path"
    std::string role;  // "client" | "server"
    bool operator==(const Hello&) const = default;
};

// The "type" of a message that decode_frame_body accepted ("" if none).
std::string message_type(const Json& message);

Json to_message(const Hello& hello);
// Checks "type", then "tool", then "version" before anything else, so a
// peer of another version is named as such ("peer speaks qpscope exchange
// version 2, this is version 1") whatever else its hello carries.
Hello parse_hello(const Json& message);

Json to_message(const Endpoint& endpoint);
Endpoint parse_endpoint(const Json& message);

// Test parameters: a flat object of the test's own fields (strings,
// numbers, booleans), defined by the caller, and the side's --timeout.
struct Params {
    Json params;
    std::chrono::milliseconds timeout{0};
};
Json params_message(const Json& params, std::chrono::milliseconds timeout);
Params parse_params(const Json& message);

Json ready_message();
void parse_ready(const Json& message);

// A heartbeat: sent during a run only, skipped by every receive (src/net/heartbeat.hpp).
Json alive_message();

// A side's results: any object, defined by the caller.
Json results_message(const Json& results);
Json parse_results(const Json& message);

// Sent instead of the expected message when a side gives up, so the peer
// can say why: {"type":"error","message":"..."}.
Json error_message(std::string_view text);
std::string parse_error_message(const Json& message);

// A side whose run stalled while the exchange still answers says why and
// sends its evidence (any object, defined by the caller); the peer answers
// with its own (message "answer"). Strict: exactly those two members.
struct Stalled {
    std::string message;
    Json evidence;
};
Json stalled_message(std::string_view text, const Json& evidence);
Stalled parse_stalled(const Json& message);

// The must_agree keys whose values differ, as "size: local 64, remote 4096"
// (a key present on one side only shows "(not set)" on the other). Keys not
// in must_agree may differ.
std::vector<std::string> compare_params(const Json& local, const Json& remote,
                                        const std::vector<std::string>& must_agree);

// "peer speaks qpscope exchange version 2, this is version 1"
std::string version_mismatch(std::uint32_t remote, std::uint32_t local);

// The text form of a GID on the wire, as decode::format_gid prints it:
// "fe80:0000:0000:0000:5054:00ff:fe12:3456". Parsing takes any IPv6 text.
std::string gid_text(const std::array<std::uint8_t, 16>& gid);

}  // namespace qps::net
