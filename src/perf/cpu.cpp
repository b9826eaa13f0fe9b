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

CpuTimes thread_cpu_times_now()
{
    rusage ru{};
    ::getrusage(RUSAGE_THREAD, &ru);
    return {seconds(ru.ru_utime), seconds(ru.ru_stime)};
}

std::vector<int> choose_cpus(unsigned n, const std::vector<int>& allowed, const std::vector<int>& near_nic)
{
    std::vector<int> out;
    const auto in = [](const std::vector<int>& v, int c) { return std::find(v.begin(), v.end(), c) != v.end(); };
    for (int c : near_nic)
        if (out.size() < n && in(allowed, c) && !in(out, c))
            out.push_back(c);
    for (int c : allowed)
        if (out.size() < n && !in(out, c))
            out.push_back(c);
    return out;
}

CpuUse cpu_use(const CpuTimes& before, const CpuTimes& after, double wall_s)
{
    return {std::max(0.0, after.user_s - before.user_s), std::max(0.0, after.sys_s - before.sys_s),
            std::max(0.0, wall_s)};
}

}  // namespace qps::perf
