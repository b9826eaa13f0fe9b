// kernel::confirm_missing: a QP a dump left out (the kernel resumes a
// multi-part dump by position, so QPs destroyed between parts shift the
// rest past the resume point) is looked for in further dumps before it is
// called gone. The dumps here are written out by hand.
#include <doctest/doctest.h>
#include <vector>

#include "src/kernel/rdma_netlink.hpp"

using qps::kernel::confirm_missing;
using qps::kernel::KernelQp;

namespace {

KernelQp qp(std::uint32_t dev, std::uint32_t lqpn, std::uint32_t sq_psn = 0)
{
    KernelQp q;
    q.dev_index = dev;
    q.lqpn = lqpn;
    q.sq_psn = sq_psn;
    return q;
}

std::vector<std::uint32_t> qpns(const std::vector<KernelQp>& v)
{
    std::vector<std::uint32_t> out;
    for (const auto& q : v)
        out.push_back(q.lqpn);
    return out;
}

}  // namespace

TEST_CASE("confirm_missing: nothing missing, no dump more")
{
    std::vector<KernelQp> now{qp(1, 0x11), qp(1, 0x12)};
    int calls = 0;
    CHECK(confirm_missing(now, {qp(1, 0x11)}, [&] { ++calls; return std::vector<KernelQp>{}; }) == 0);
    CHECK(calls == 0);
    CHECK(qpns(now) == std::vector<std::uint32_t>{0x11, 0x12});
}

TEST_CASE("confirm_missing: a QP the first dump skipped is put back with the later dump's reading")
{
    std::vector<KernelQp> now{qp(1, 0x11), qp(1, 0x13)};  // 0x12 skipped, 0x14 gone
    const std::vector<KernelQp> before{qp(1, 0x11), qp(1, 0x12, 5), qp(1, 0x13), qp(1, 0x14)};
    int calls = 0;
    const int dumps = confirm_missing(now, before, [&] {
        ++calls;
        return std::vector<KernelQp>{qp(1, 0x11), qp(1, 0x12, 9), qp(1, 0x13), qp(1, 0x15)};
    });
    CHECK(dumps == 2);  // 0x14 is missing from both: gone
    CHECK(calls == 2);
    CHECK(qpns(now) == std::vector<std::uint32_t>{0x11, 0x13, 0x12});  // 0x15 is the next look's to see
    CHECK(now.back().sq_psn == 9u);
}

TEST_CASE("confirm_missing: skipped again in the second dump, found in the third; at most `tries` dumps")
{
    std::vector<KernelQp> now{qp(1, 0x11)};
    const std::vector<KernelQp> before{qp(1, 0x11), qp(1, 0x12), qp(2, 0x12)};
    std::vector<std::vector<KernelQp>> dumps{{qp(1, 0x11), qp(2, 0x12)}, {qp(1, 0x11), qp(1, 0x12)}};
    std::size_t next = 0;
    CHECK(confirm_missing(now, before, [&] { return dumps.at(next++); }) == 2);
    CHECK(now.size() == 3u);  // device 2's 0x12 and device 1's 0x12 are two QPs

    std::vector<KernelQp> lone{};
    int calls = 0;
    CHECK(confirm_missing(lone, {qp(1, 0x20)}, [&] { ++calls; return std::vector<KernelQp>{}; }, 3) == 3);
    CHECK(calls == 3);
    CHECK(lone.empty());
}
