#include "src/decode/cm_state.hpp"

#if __has_include(<rdma/rdma_cma.h>)
#include <rdma/rdma_cma.h>
// The port spaces are librdmacm's too: the table is checked against them
// where the header is installed.
static_assert(qps::decode::lookup<int>(qps::decode::cm_port_space_table, RDMA_PS_IPOIB) == "IPOIB");
static_assert(qps::decode::lookup<int>(qps::decode::cm_port_space_table, RDMA_PS_TCP) == "TCP");
static_assert(qps::decode::lookup<int>(qps::decode::cm_port_space_table, RDMA_PS_UDP) == "UDP");
static_assert(qps::decode::lookup<int>(qps::decode::cm_port_space_table, RDMA_PS_IB) == "IB");
#endif

namespace qps::decode {

Decoded cm_state(int raw)
{
    if (const auto* e = find_entry(cm_state_table, raw))
        return Decoded::named(raw, std::string(e->name));
    Decoded d = Decoded::named(raw, unknown_name(raw));
    d.known = false;
    return d;
}

std::string_view cm_phase(int raw)
{
    const auto* e = find_entry(cm_state_table, raw);
    return e ? e->phase : std::string_view("unknown");
}

std::vector<std::string> cm_phase_word_list() { return {cm_phase_words.begin(), cm_phase_words.end()}; }

Decoded cm_port_space(std::uint32_t raw)
{
    if (raw > 0xffff)  // the kernel's u32 holds a 16-bit value: no table entry, kept as it is
        return unknown_value(raw, {});
    return decode_enum<int>(cm_port_space_table, static_cast<int>(raw));
}

}  // namespace qps::decode
