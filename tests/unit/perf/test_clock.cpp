// The benchmark clock. Correctness, not speed: whichever source this machine
// gets (TSC on real hosts, clock_gettime in the TCG test VM), a measured
// sleep must come out right.
#include <chrono>
#include <cstdint>
#include <doctest/doctest.h>
#include <thread>

#include "src/perf/clock.hpp"

using namespace qps::perf;

namespace {

// A 20 ms sleep timed by `clock`, bracketed by steady_clock. The clock's
// interval lies inside the steady_clock one and spans the whole sleep;
// 2 % covers CLOCK_MONOTONIC_RAW vs CLOCK_MONOTONIC (NTP slews <= 0.05 %)
// and any calibration error with a wide margin.
void check_sleep(const Clock& clock)
{
    const auto s0 = std::chrono::steady_clock::now();
    const std::uint64_t t0 = clock.now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t t1 = clock.now();
    const auto s1 = std::chrono::steady_clock::now();
    const double measured = clock.to_ns(t1 - t0);
    const double outer = std::chrono::duration<double, std::nano>(s1 - s0).count();
    INFO(clock.info().source << ": " << measured << " ns inside " << outer << " ns");
    CHECK(measured >= 20e6 * 0.98);
    CHECK(measured <= outer * 1.02);
}

}  // namespace

TEST_CASE("clock: system() is clock_gettime with nanosecond ticks")
{
    const Clock c = Clock::system();
    CHECK(c.info().source == "clock_gettime(CLOCK_MONOTONIC_RAW)");
    CHECK(c.info().ticks_per_ns == 1.0);
    CHECK(c.to_ns(12345) == 12345.0);
    CHECK_FALSE(c.info().why.empty());
    check_sleep(c);
}

TEST_CASE("clock: calibrate() picks a source, says why, and measures a sleep")
{
    const Clock c = Clock::calibrate(std::chrono::milliseconds(20));
    const ClockInfo& info = c.info();
    MESSAGE("clock: " << info.source << ", " << info.why << ", " << info.ticks_per_ns << " ticks/ns, "
                      << info.calibration_error_ppm << " ppm");
    CHECK_FALSE(info.why.empty());
    CHECK(info.why.find('\n') == std::string::npos);
    if (info.source == "tsc") {
        CHECK(info.invariant_tsc);
        CHECK(info.ticks_per_ns > 0.1);  // 100 MHz .. 10 GHz
        CHECK(info.ticks_per_ns < 10);
        CHECK(info.calibration_ms >= 15);
        CHECK(info.calibration_error_ppm <= 1000);
        CHECK(info.why.find("GHz") != std::string::npos);
    } else {
        CHECK(info.source == "clock_gettime(CLOCK_MONOTONIC_RAW)");
        CHECK(info.ticks_per_ns == 1.0);
    }
    check_sleep(c);
}

TEST_CASE("clock: now() never goes backwards")
{
    for (const Clock& c : {Clock::calibrate(std::chrono::milliseconds(10)), Clock::system()}) {
        CAPTURE(c.info().source);
        std::uint64_t prev = c.now();
        std::uint64_t backwards = 0;
        for (int i = 0; i < 200000; ++i) {
            const std::uint64_t t = c.now();
            backwards += t < prev;
            prev = t;
        }
        CHECK(backwards == 0);
        CHECK(c.now() > 0);
    }
}

TEST_CASE("clock: when the TSC is refused, and why")
{
    TscFacts good;
    good.x86 = true;
    good.invariant_tsc = true;
    good.rdtscp = true;
    good.current_clocksource = "tsc";
    good.available_clocksources = "tsc hpet acpi_pm";
    CHECK_FALSE(tsc_unusable_reason(good));

    // A VM whose kernel prefers kvm-clock but still offers the TSC: usable.
    TscFacts vm = good;
    vm.current_clocksource = "kvm-clock";
    vm.available_clocksources = "kvm-clock tsc acpi_pm";
    CHECK_FALSE(tsc_unusable_reason(vm));

    // No sysfs (a container): CPUID decides.
    TscFacts no_sysfs = good;
    no_sysfs.current_clocksource.reset();
    no_sysfs.available_clocksources.reset();
    CHECK_FALSE(tsc_unusable_reason(no_sysfs));

    TscFacts tcg = good;
    tcg.invariant_tsc = false;
    CHECK(tsc_unusable_reason(tcg) == "no invariant TSC (CPUID 0x80000007 EDX[8] clear)");

    TscFacts no_rdtscp = good;
    no_rdtscp.rdtscp = false;
    CHECK(tsc_unusable_reason(no_rdtscp)->find("RDTSCP") != std::string::npos);

    // The kernel's watchdog marked it unstable: it leaves the list ("tsc-early" is not "tsc").
    TscFacts unstable = good;
    unstable.current_clocksource = "hpet";
    unstable.available_clocksources = "hpet acpi_pm tsc-early";
    const auto reason = tsc_unusable_reason(unstable);
    REQUIRE(reason);
    CHECK(reason->find("unstable") != std::string::npos);
    CHECK(reason->find("hpet acpi_pm") != std::string::npos);

    TscFacts arm;
    CHECK(tsc_unusable_reason(arm) == "no TSC on this architecture");
}

TEST_CASE("clock: this machine's facts agree with the chosen source")
{
    const TscFacts facts = probe_tsc();
    const Clock c = Clock::calibrate(std::chrono::milliseconds(10));
    CHECK(c.info().invariant_tsc == facts.invariant_tsc);
    if (const auto reason = tsc_unusable_reason(facts)) {
        CHECK(c.info().source != "tsc");
        CHECK(c.info().why == *reason);
    }
}
