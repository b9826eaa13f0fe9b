// `cm list`'s core job on a dump (ops::cm_list_report): the filters, an
// unknown device or phase as a usage error naming what is valid, and the
// host's total beside what was kept.
#include <doctest/doctest.h>

#include "src/error.hpp"
#include "src/ops/cm_list.hpp"
#include "unit/util.hpp"

using namespace qps;

namespace {

kernel::KernelCmId cm_id_of(std::string dev, std::uint8_t state, std::optional<std::uint32_t> pid)
{
    kernel::KernelCmId c;
    c.dev_name = std::move(dev);
    c.state = state;
    c.port_space = 0x106;
    c.pid = pid;
    return c;
}

// A listener and its two connections on rxe0 (perftest's server and
// client), a connection closing on mlx5_0, a kernel user's listener there.
kernel::CmIdDump sample_cm_dump()
{
    kernel::CmIdDump d;
    d.devices = {"rxe0", "mlx5_0"};
    d.ids = {cm_id_of("rxe0", 8, 100), cm_id_of("rxe0", 5, 100), cm_id_of("rxe0", 5, 200),
             cm_id_of("mlx5_0", 6, 300), cm_id_of("mlx5_0", 8, std::nullopt)};
    return d;
}

}  // namespace

TEST_CASE("cm list: no filter keeps every ID in the kernel's order")
{
    const auto r = ops::cm_list_report(sample_cm_dump(), {});
    CHECK(r.ids.size() == 5);
    CHECK(r.host_total == 5);
    CHECK_FALSE(r.filtered);
    CHECK(*r.ids[0].device == "rxe0");
    CHECK(r.ids[0].phase == "listening");
    CHECK(*r.ids[4].device == "mlx5_0");
}

TEST_CASE("cm list: -d, --state and --pid keep what they name, together too")
{
    ops::CmListFilter f;
    f.device = "rxe0";
    auto r = ops::cm_list_report(sample_cm_dump(), f);
    CHECK(r.ids.size() == 3);
    CHECK(r.host_total == 5);
    CHECK(r.filtered);

    f.phase = "connected";
    r = ops::cm_list_report(sample_cm_dump(), f);
    CHECK(r.ids.size() == 2);

    f.pid = 200;
    r = ops::cm_list_report(sample_cm_dump(), f);
    REQUIRE(r.ids.size() == 1);
    CHECK(r.ids[0].pid == 200u);

    ops::CmListFilter listening;
    listening.phase = "listening";
    r = ops::cm_list_report(sample_cm_dump(), listening);
    CHECK(r.ids.size() == 2);

    ops::CmListFilter closing;
    closing.phase = "closing";
    closing.pid = 100;  // none of pid 100's is closing: an empty list, not an error
    r = ops::cm_list_report(sample_cm_dump(), closing);
    CHECK(r.ids.empty());
    CHECK(r.host_total == 5);
}

TEST_CASE("cm list: an unknown device or phase is a usage error naming what is valid")
{
    ops::CmListFilter f;
    f.device = "rxe9";
    const std::string msg = test::thrown<UsageError>([&] { ops::cm_list_report(sample_cm_dump(), f); });
    CHECK(test::contains(msg, "unknown device 'rxe9'"));
    CHECK(test::contains(msg, "did you mean 'rxe0'?"));
    CHECK(test::contains(msg, "rxe0, mlx5_0"));

    ops::CmListFilter p;
    p.phase = "established";
    const std::string pm = test::thrown<UsageError>([&] { ops::cm_list_report(sample_cm_dump(), p); });
    CHECK(test::contains(pm, "'established'"));
    CHECK(test::contains(pm, "listening, connecting, connected, closing, bound, idle"));

    // A host without IDs (or devices): an empty report.
    const auto none = ops::cm_list_report(kernel::CmIdDump{}, {});
    CHECK(none.ids.empty());
    CHECK(none.host_total == 0);
}
