// The IP traffic class of RoCE v2 (ibv_global_route.traffic_class, the
// IPv4 TOS / IPv6 traffic class byte): DSCP in the upper six bits, ECN in
// the lower two. `qpscope path` compares what was sent with what arrived
// (a switch that re-marks DSCP moves traffic out of the lossless class;
// CE means congestion was met on the way).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/decode/decode.hpp"

namespace qps::decode {

// DSCP code points with a standard name: class selectors (RFC 2474), assured
// forwarding (RFC 2597), expedited forwarding (RFC 3246), voice-admit
// (RFC 5865) and lower effort (RFC 8622). Others are kept by number.
inline constexpr std::array<EnumEntry<int>, 23> dscp_table{{
    {0, "CS0"},   {1, "LE"},    {8, "CS1"},   {10, "AF11"}, {12, "AF12"}, {14, "AF13"},
    {16, "CS2"},  {18, "AF21"}, {20, "AF22"}, {22, "AF23"}, {24, "CS3"},  {26, "AF31"},
    {28, "AF32"}, {30, "AF33"}, {32, "CS4"},  {34, "AF41"}, {36, "AF42"}, {38, "AF43"},
    {40, "CS5"},  {44, "VOICE-ADMIT"},      {46, "EF"},   {48, "CS6"},  {56, "CS7"},
}};
static_assert(values_unique<int>(dscp_table));

// ECN code points (RFC 3168).
inline constexpr std::array<EnumEntry<int>, 4> ecn_table{{
    {0, "Not-ECT"},
    {1, "ECT(1)"},
    {2, "ECT(0)"},
    {3, "CE"},
}};

// One traffic class byte, split (the decoded QP attributes carry it).
struct TrafficClass {
    std::uint8_t raw;
    std::uint8_t dscp;  // tc >> 2
    std::uint8_t ecn;   // tc & 3
    std::string_view ecn_name;
};
TrafficClass traffic_class(std::uint8_t tc);

inline constexpr int dscp_of(int traffic_class) { return (traffic_class >> 2) & 0x3f; }
inline constexpr int ecn_of(int traffic_class) { return traffic_class & 0x3; }
inline constexpr int traffic_class_of(int dscp, int ecn) { return ((dscp & 0x3f) << 2) | (ecn & 0x3); }

Decoded dscp(int code);  // "AF31"; an unnamed code point keeps its number (UNKNOWN(0x..))
Decoded ecn(int code);

// "DSCP 26 (AF31), ECN ECT(0)": one traffic class byte in words.
std::string traffic_class_text(int traffic_class);

// What happened to the traffic class between sender and receiver, or
// nullopt when it arrived as sent. Names a DSCP re-marking ("sent DSCP 26
// (AF31), received DSCP 0 (CS0): re-marked on the way"), ECN set to CE
// ("congestion experienced on the way") and ECN cleared or changed.
std::optional<std::string> traffic_class_change(int sent, int received);

// The traffic class of a received UD message from the 40 bytes of GRH
// space its receive buffer starts with: on RoCE v2 over IPv4 the IPv4
// header fills the last 20 (version 4 in byte 20, the TOS in byte 21), over
// IPv6 (and on RoCE v1 / InfiniBand, the GRH itself) version 6 and the
// traffic class in the first two. nullopt when neither header is there.
std::optional<int> received_traffic_class(const std::array<std::uint8_t, 40>& grh);

}  // namespace qps::decode
