#include "src/perf/cpu.hpp"

#include <algorithm>
#include <sys/resource.h>

namespace qps::perf {

namespace {
double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }
}  // namespace

CpuTimes cpu_times_now()
{
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return {seconds(ru.ru_utime), seconds(ru.ru_stime)};
}

CpuUse cpu_use(const CpuTimes& before, const CpuTimes& after, double wall_s)
{
    return {std::max(0.0, after.user_s - before.user_s), std::max(0.0, after.sys_s - before.sys_s),
            std::max(0.0, wall_s)};
}

}  // namespace qps::perf
