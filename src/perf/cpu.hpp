// CPU time used by this process (user and system), for the CPU-use figure
// of a measured span: (user + sys) / wall, in percent of one CPU.
#pragma once

#include <vector>

namespace qps::perf {

struct CpuTimes {
    double user_s = 0, sys_s = 0;
};

// getrusage(RUSAGE_SELF).
CpuTimes cpu_times_now();
// getrusage(RUSAGE_THREAD): the calling thread's (bw --threads).
CpuTimes thread_cpu_times_now();

// bw --threads without --cpus: `n` CPUs from those this process may run on
// (`allowed`), the ones near the NIC (`near_nic`, its NUMA node) first, each
// once; fewer than n when there are not enough.
std::vector<int> choose_cpus(unsigned n, const std::vector<int>& allowed, const std::vector<int>& near_nic);

struct CpuUse {
    double user_s = 0, sys_s = 0, wall_s = 0;
    // Of one CPU; 0 when no wall time passed.
    double percent() const { return wall_s > 0 ? 100.0 * (user_s + sys_s) / wall_s : 0.0; }
};

CpuUse cpu_use(const CpuTimes& before, const CpuTimes& after, double wall_s);

}  // namespace qps::perf
