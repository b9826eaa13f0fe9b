// The benchmark clock: the CPU's invariant TSC read with RDTSCP, calibrated
// against CLOCK_MONOTONIC_RAW, or clock_gettime(CLOCK_MONOTONIC_RAW) itself
// where the TSC cannot be trusted.
//
// When the TSC is used (all of these must hold, else the fallback):
//   - x86-64 and CPUID 0x80000007 EDX[8] (invariant TSC: constant rate in
//     every P-/C-state, never stops);
//   - CPUID 0x80000001 EDX[27] (RDTSCP; present on every CPU with an
//     invariant TSC, but a hypervisor can hide it);
//   - the kernel still offers "tsc" in
//     /sys/devices/system/clocksource/clocksource0/available_clocksource.
//     The kernel drops a TSC it marked unstable (watchdog, tsc=unstable)
//     from that list. The *current* clocksource is deliberately not
//     required to be "tsc": in VMs it is often kvm-clock or a Hyper-V page
//     while the TSC underneath is invariant and exposed; it is named in
//     `why` instead. Unreadable sysfs (containers): CPUID is trusted;
//   - the calibration agrees with itself: the rates measured over five
//     slices of the calibration span differ from the whole-span rate by at
//     most 1000 ppm (the histogram's own 0.1 %).
//
// now() is inline: one branch on a member that never changes, then either
// RDTSCP or clock_gettime. RDTSCP waits until every earlier instruction has
// executed; the asm also has a "memory" clobber so the compiler cannot move
// loads or stores of the measured code across it. Ticks are only meaningful
// as differences: to_ns(t1 - t0).
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace qps::perf {

struct ClockInfo {
    std::string source;                // "tsc" or "clock_gettime(CLOCK_MONOTONIC_RAW)"
    bool invariant_tsc = false;        // what CPUID says, whichever source is used
    double ticks_per_ns = 1.0;         // 1.0 for clock_gettime (ticks are ns)
    double calibration_ms = 0;         // wall time the calibration spanned (0: none)
    double calibration_error_ppm = 0;  // largest deviation of a slice's rate from the whole-span rate
    std::string why;                   // one line: why this source
};

// What decides between the TSC and clock_gettime; probe_tsc() fills it from
// CPUID and sysfs, tests build their own.
struct TscFacts {
    bool x86 = false;
    bool invariant_tsc = false;  // CPUID 0x80000007 EDX[8]
    bool rdtscp = false;         // CPUID 0x80000001 EDX[27]
    std::optional<std::string> current_clocksource;     // sysfs, trimmed; nullopt: unreadable
    std::optional<std::string> available_clocksources;  // sysfs, space-separated; nullopt: unreadable
};

TscFacts probe_tsc();
// nullopt: the TSC may be used (subject to calibration); else one line saying why not.
std::optional<std::string> tsc_unusable_reason(const TscFacts& facts);

class Clock {
public:
    // Probes the CPU and the kernel; on the TSC path, sleeps for `span`
    // (at least 5 ms) measuring the TSC rate against CLOCK_MONOTONIC_RAW.
    static Clock calibrate(std::chrono::milliseconds span = std::chrono::milliseconds(50));
    // clock_gettime(CLOCK_MONOTONIC_RAW) regardless of the CPU (tests, --clock=system).
    static Clock system();

    std::uint64_t now() const noexcept { return read(tsc_); }

    // now() for a hot loop that keeps the source in a register: `tsc` is
    // uses_tsc() of the clock whose ticks are wanted.
    bool uses_tsc() const noexcept { return tsc_; }
    // Always inlined: a hot loop reads it twice a message, and a call costs
    // it half again its own instructions (bench/cost). The system clock's
    // read is out of line.
    [[gnu::always_inline]] static std::uint64_t read(bool tsc) noexcept
    {
#if defined(__x86_64__)
        if (tsc) [[likely]] {
            std::uint32_t lo, hi;
            asm volatile("rdtscp" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
            return (static_cast<std::uint64_t>(hi) << 32) | lo;
        }
#endif
        return read_system();
    }
    // clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds.
    [[gnu::noinline]] static std::uint64_t read_system() noexcept;

    // Nanoseconds in a tick difference (now() - earlier now()).
    double to_ns(std::uint64_t ticks) const noexcept { return static_cast<double>(ticks) * ns_per_tick_; }

    const ClockInfo& info() const noexcept { return info_; }

private:
    Clock(bool tsc, ClockInfo info);

    bool tsc_ = false;
    double ns_per_tick_ = 1.0;
    ClockInfo info_;
};

}  // namespace qps::perf
