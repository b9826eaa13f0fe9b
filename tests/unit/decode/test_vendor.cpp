// The vendor tables: values unique, statuses real, spot values from the
// cited headers, every provider row says what vendor_err holds.
#include <doctest/doctest.h>
#include <set>

#include "src/decode/vendor.hpp"

using namespace qps::decode;

namespace {

bool vendor_values_unique(std::span<const VendorCode> table)
{
    std::set<int> seen;
    for (const auto& c : table)
        if (!seen.insert(c.value).second)
            return false;
    return true;
}

}  // namespace

TEST_CASE("vendor tables: unique values, real statuses, the cited spot values")
{
    for (const auto table : {std::span<const VendorCode>(mlx5_cqe_syndrome_table),
                             std::span<const VendorCode>(efa_comp_status_table)}) {
        CHECK(vendor_values_unique(table));
        for (const auto& c : table) {
            CHECK(c.wc_status >= IBV_WC_SUCCESS);
            CHECK(c.wc_status <= IBV_WC_TM_RNDV_INCOMPLETE);
            CHECK_FALSE(c.name.empty());
            CHECK_FALSE(c.meaning.empty());
        }
    }
    CHECK(mlx5_cqe_syndrome_table[10].value == 0x15);
    CHECK(mlx5_cqe_syndrome_table[10].wc_status == IBV_WC_RETRY_EXC_ERR);
    CHECK(efa_comp_status_table[13].value == 13);
    CHECK(efa_comp_status_table[13].name == "LOCAL_ERROR_UNRESP_REMOTE");
    for (const auto& p : vendor_err_providers) {
        CHECK_FALSE(p.provider.empty());
        CHECK_FALSE(p.vendor_err_is.empty());
        CHECK_FALSE(p.source.empty());
    }
}
