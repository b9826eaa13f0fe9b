#include "src/decode/port.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace qps::decode {

namespace {

}  // namespace

Decoded port_state(int raw) { return decode_enum<int>(port_state_table, raw); }
Decoded phys_state(int raw) { return decode_enum<int>(phys_state_table, raw); }
Decoded link_layer(int raw) { return decode_enum<int>(link_layer_table, raw); }

Decoded width(int raw)
{
    const auto* e = find_entry(width_table, raw);
    if (!e)
        return unknown_value(raw, "lanes");
    return Decoded::count(raw, std::string(e->name), "lanes", e->lanes);
}

Decoded speed(int raw)
{
    const auto* e = find_entry(speed_table, raw);
    if (!e)
        return unknown_value(raw, "lane_gbps");
    return Decoded::quantity(raw, std::string(e->name), "lane_gbps", e->lane_gbps);
}

Decoded vl_cap(int raw)
{
    const auto* e = find_entry(vl_cap_table, raw);
    if (!e)
        return unknown_value(raw, "vls");
    return Decoded::count(raw, std::string(e->name), "vls", e->count);
}

Decoded mtu(int raw)
{
    const auto* e = find_entry(mtu_table, raw);
    if (!e)
        return unknown_value(raw, "bytes");
    return Decoded::count(raw, std::nullopt, "bytes", 128 << raw);
}

std::optional<ibv_mtu> mtu_from_bytes(std::uint64_t bytes)
{
    for (const auto& e : mtu_table)
        if ((128u << e.value) == bytes)
            return static_cast<ibv_mtu>(e.value);
    return std::nullopt;
}

Flags port_cap_flags(std::uint32_t raw) { return decode_flags(port_cap_flags_table, raw); }
Flags port_cap_flags2(std::uint16_t raw) { return decode_flags(port_cap_flags2_table, raw); }

std::optional<LinkRate> link_rate(int width_raw, int speed_raw)
{
    const auto* w = find_entry(width_table, width_raw);
    const auto* s = find_entry(speed_table, speed_raw);
    if (!w || !s)
        return std::nullopt;
    return LinkRate{w->lanes * s->lane_gbps, w->lanes * s->lane_data_gbps};
}

std::optional<std::string> pkey_index_problem(std::string_view device, unsigned port, unsigned table_len,
                                              const std::vector<PkeyEntry>& entries, unsigned index)
{
    std::vector<std::string> shown;
    for (const PkeyEntry& e : entries)
        if (shown.size() < 8)
            shown.push_back(fmt::format("{} = {:#06x}", e.index, e.pkey));
    const std::string table = fmt::format("{} port {}'s P_Key table has {} entr{} ({}{})", device, port, table_len,
                                          table_len == 1 ? "y" : "ies", fmt::join(shown, ", "),
                                          table_len > 8 ? ", ..." : "");
    if (index >= table_len)
        return table_len == 0 ? fmt::format("--pkey-index {}: {}", index, table)
                              : fmt::format("--pkey-index {}: {}; valid are 0..{}", index, table, table_len - 1);
    for (const PkeyEntry& e : entries)
        if (e.index == index && (e.pkey & 0x7fff) == 0)
            return fmt::format("--pkey-index {}: that entry of {} is empty (P_Key {:#06x}): a QP on it cannot reach "
                               "anyone",
                               index, table, e.pkey);
    return std::nullopt;
}

}  // namespace qps::decode
