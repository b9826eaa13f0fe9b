#include "src/decode/tos.hpp"

#include <fmt/format.h>
#include <vector>

#include "src/util/text.hpp"

namespace qps::decode {

Decoded dscp(int code) { return decode_enum<int>(dscp_table, code); }
Decoded ecn(int code) { return decode_enum<int>(ecn_table, code); }

TrafficClass traffic_class(std::uint8_t tc)
{
    return TrafficClass{tc, static_cast<std::uint8_t>(dscp_of(tc)), static_cast<std::uint8_t>(ecn_of(tc)),
                        *lookup<int>(ecn_table, ecn_of(tc))};
}

namespace {

std::string dscp_text(int code)
{
    const Decoded d = dscp(code);
    return d.known ? fmt::format("DSCP {} ({})", code, *d.name) : fmt::format("DSCP {}", code);
}

}  // namespace

std::string traffic_class_text(int traffic_class)
{
    return fmt::format("{}, ECN {}", dscp_text(dscp_of(traffic_class)), *ecn(ecn_of(traffic_class)).name);
}

std::optional<std::string> traffic_class_change(int sent, int received)
{
    std::vector<std::string> what;
    if (dscp_of(sent) != dscp_of(received))
        what.push_back(fmt::format("sent {}, received {}: re-marked on the way", dscp_text(dscp_of(sent)),
                                   dscp_text(dscp_of(received))));
    const int ecn_sent = ecn_of(sent), ecn_received = ecn_of(received);
    if (ecn_received == 3 && ecn_sent != 3 && ecn_sent != 0)
        what.emplace_back("ECN CE: congestion experienced on the way");
    else if (ecn_sent != ecn_received)
        what.push_back(fmt::format("sent ECN {}, received ECN {}: {}", *ecn(ecn_sent).name, *ecn(ecn_received).name,
                                   ecn_received == 0 ? "ECN cleared on the way" : "ECN changed on the way"));
    if (what.empty())
        return std::nullopt;
    return util::join(what, "; ");
}

std::optional<int> received_traffic_class(const std::array<std::uint8_t, 40>& grh)
{
    if ((grh[20] >> 4) == 4 && (grh[20] & 0xf) >= 5)  // IPv4, a header of at least 20 bytes
        return grh[21];
    if ((grh[0] >> 4) == 6)
        return ((grh[0] & 0xf) << 4) | (grh[1] >> 4);
    return std::nullopt;
}

}  // namespace qps::decode
