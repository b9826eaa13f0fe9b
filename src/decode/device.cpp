#include "src/decode/device.hpp"

#include <fmt/format.h>

namespace qps::decode {

Decoded node_type(int raw) { return decode_enum<int>(node_type_table, raw); }
Decoded transport(int raw) { return decode_enum<int>(transport_table, raw); }
Decoded atomic_cap(int raw) { return decode_enum<int>(atomic_cap_table, raw); }

std::string no_atomics_text(std::string_view device)
{
    return fmt::format("{} does no atomics (atomic_cap {}): run it on a device whose 'qpscope ports' shows atomics",
                       device, atomic_cap(IBV_ATOMIC_NONE).name.value_or("NONE"));
}

std::string no_xrc_text(std::string_view device)
{
    static_assert(IBV_DEVICE_XRC == 1 << 20, "XRC is bit 20 of device_cap_flags");
    return fmt::format("{} has no XRC: device_cap_flags lacks XRC (bit 20); XRC needs a device that has it ({})",
                       device, xrc_drivers);
}

std::string_view connects_only_through(int transport)
{
    for (const ConnectPath& c : cm_only_transport_table)
        if (c.transport == transport)
            return c.through;
    return {};
}

std::string_view cm_only_carries(int transport)
{
    for (const ConnectPath& c : cm_only_transport_table)
        if (c.transport == transport)
            return c.carries;
    return {};
}

Flags device_cap_flags(std::uint64_t raw)
{
    return decode_flags(device_cap_flags_table, raw);
}

}  // namespace qps::decode
