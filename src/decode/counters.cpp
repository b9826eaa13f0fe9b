#include "src/decode/counters.hpp"

namespace qps::decode {

static_assert([] {
    for (std::size_t i = 0; i < error_counter_table.size(); ++i)
        for (std::size_t j = i + 1; j < error_counter_table.size(); ++j)
            if (error_counter_table[i].name == error_counter_table[j].name)
                return false;
    return true;
}(), "error counter names are unique");

std::optional<ErrorCounterInfo> error_counter(std::string_view name)
{
    // mlx5 in switchdev mode names the representors' Q counters vport_<name>.
    if (name.rfind("vport_", 0) == 0)
        name.remove_prefix(6);
    for (const auto& e : error_counter_table)
        if (e.name == name)
            return e;
    return std::nullopt;
}

std::string_view severity_name(CounterSeverity s)
{
    switch (s) {
    case CounterSeverity::fail: return "fail";
    case CounterSeverity::warn: return "warn";
    case CounterSeverity::info: return "info";
    }
    return "?";
}

}  // namespace qps::decode
