// explain vendor-err and mlx5-syndrome: a provider's own completion codes,
// decoded only from the public tables of src/decode/vendor.hpp; where no
// public source documents a value the explanation says so.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/decode/qp.hpp"
#include "src/decode/vendor.hpp"
#include "src/explain/parse.hpp"

namespace qps::explain::detail {

namespace {

const decode::VendorCode* code_in(std::span<const decode::VendorCode> table, std::int64_t value)
{
    for (const auto& c : table)
        if (c.value == value)
            return &c;
    return nullptr;
}

std::string status_name(int wc_status) { return "IBV_WC_" + *decode::wc_status(wc_status).name; }

}  // namespace

Explanation mlx5_syndrome(std::string_view value)
{
    const auto n = number_of(value);
    if (!n || *n < 0 || *n > 0xff)
        out_of_range("mlx5-syndrome", value);
    Explanation e = start("mlx5-syndrome", value);
    e.raw = *n;
    if (const auto* c = code_in(decode::mlx5_cqe_syndrome_table, *n)) {
        e.name = std::string(c->name);
        e.facts.push_back({"wc_status", "reported as", status_name(c->wc_status)});
        e.facts.push_back({"meaning", "meaning", std::string(c->meaning)});
        e.checks = decode::wc_status_checks(c->wc_status);
    } else {
        e.name = fmt::format("unknown ({:#x})", *n);
        e.decoded = false;
        e.facts.push_back({"wc_status", "reported as", status_name(IBV_WC_GENERAL_ERR)});
    }
    e.facts.push_back({"source", "source", "rdma-core providers/mlx5/mlx5dv.h (MLX5_CQE_SYNDROME_*), cq.c"});
    return e;
}

Explanation vendor_err(std::string_view value, const Context& context)
{
    const auto n = number_of(value);
    if (!n || *n < 0 || *n > 0xffffffffll)
        out_of_range("vendor-err", value);
    Explanation e = start("vendor-err", value);
    e.raw = *n;
    e.decoded = false;
    std::vector<std::string> names;
    for (const auto& p : decode::vendor_err_providers) {
        if (!context.vendor.empty() && p.provider != context.vendor)
            continue;
        const std::string key(p.provider);
        const auto* c = code_in(p.values, *n);
        std::string reading;
        if (p.values.empty())
            reading = fmt::format("{}: {}", p.vendor_err_is, p.source);
        else if (c)
            reading = fmt::format("{} = {}: {} (reported as {}; {})", p.vendor_err_is, c->name, c->meaning,
                                  status_name(c->wc_status), p.source);
        else
            reading = fmt::format("{}: {} is not one of its values ({})", p.vendor_err_is, *n, p.source);
        e.facts.push_back({key, key, reading});
        if (c) {
            e.decoded = true;
            names.push_back(fmt::format("{} {}", p.provider, c->name));
        }
    }
    if (context.vendor.empty() && e.facts.size() > 1)
        e.facts.push_back({"note", "note",
                           "vendor_err means something else on each provider: give --vendor, or read the device "
                           "name in the log (mlx5_0 is mlx5, efa_0 is efa)"});
    e.name = names.empty() ? "not documented publicly" : fmt::format("{}", fmt::join(names, ", "));
    return e;
}

std::vector<std::string> vendor_value_names(std::string_view topic)
{
    std::vector<std::string> out;
    if (topic == "mlx5-syndrome")
        for (const auto& c : decode::mlx5_cqe_syndrome_table)
            out.push_back(fmt::format("{:#x}", c.value));
    return out;
}

}  // namespace qps::explain::detail

namespace qps::explain {

std::vector<std::string> vendor_names()
{
    std::vector<std::string> out;
    for (const auto& p : decode::vendor_err_providers)
        out.emplace_back(p.provider);
    return out;
}

}  // namespace qps::explain
