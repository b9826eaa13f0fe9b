#include "src/perf/clock.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace qps::perf {

namespace {

constexpr const char* gettime_source = "clock_gettime(CLOCK_MONOTONIC_RAW)";
constexpr double max_spread_ppm = 1000.0;  // the histogram's 0.1 %
constexpr int slices = 5;                  // calibration points: slices + 1
constexpr int tries_per_point = 9;         // keep the narrowest TSC bracket

std::optional<std::string> read_line(const char* path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line))
        return std::nullopt;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\t'))
        line.pop_back();
    return line;
}

bool has_word(const std::string& list, const std::string& word)
{
    std::istringstream in(list);
    std::string w;
    while (in >> w)
        if (w == word)
            return true;
    return false;
}

std::int64_t monotonic_raw_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// One calibration point: a CLOCK_MONOTONIC_RAW reading and the TSC at the
// middle of the narrowest of several TSC brackets around it.
// Integers: absolute TSC values exceed double's 53-bit mantissa.
struct Point {
    std::uint64_t tsc;
    std::int64_t ns;
};

}  // namespace

TscFacts probe_tsc()
{
    TscFacts f;
#if defined(__x86_64__)
    f.x86 = true;
    unsigned a = 0, b = 0, c = 0, d = 0;
    // __get_cpuid checks the highest extended leaf first and fails if absent.
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d))
        f.invariant_tsc = (d >> 8) & 1u;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
        f.rdtscp = (d >> 27) & 1u;
#endif
    f.current_clocksource = read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    f.available_clocksources = read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource");
    return f;
}

std::optional<std::string> tsc_unusable_reason(const TscFacts& f)
{
    if (!f.x86)
        return "no TSC on this architecture";
    if (!f.invariant_tsc)
        return "no invariant TSC (CPUID 0x80000007 EDX[8] clear)";
    if (!f.rdtscp)
        return "invariant TSC but no RDTSCP (CPUID 0x80000001 EDX[27] clear)";
    if (f.available_clocksources && !has_word(*f.available_clocksources, "tsc"))
        return fmt::format("the kernel marked the TSC unstable (available clocksources: {})",
                           f.available_clocksources->empty() ? "none" : *f.available_clocksources);
    return std::nullopt;
}

Clock::Clock(bool tsc, ClockInfo info) : tsc_(tsc), ns_per_tick_(1.0 / info.ticks_per_ns), info_(std::move(info)) {}

std::uint64_t Clock::read_system() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

Clock Clock::system()
{
    ClockInfo info;
    info.source = gettime_source;
    info.invariant_tsc = probe_tsc().invariant_tsc;
    info.ticks_per_ns = 1.0;
    info.why = "clock_gettime requested instead of the TSC";
    return Clock(false, std::move(info));
}

Clock Clock::calibrate(std::chrono::milliseconds span)
{
    const TscFacts facts = probe_tsc();
    ClockInfo fallback;
    fallback.source = gettime_source;
    fallback.invariant_tsc = facts.invariant_tsc;
    fallback.ticks_per_ns = 1.0;

    if (auto reason = tsc_unusable_reason(facts)) {
        fallback.why = std::move(*reason);
        return Clock(false, std::move(fallback));
    }

    const Clock tsc(true, ClockInfo{});
    const auto point = [&tsc] {
        std::uint64_t best_width = UINT64_MAX;
        Point p{0, 0};
        for (int i = 0; i < tries_per_point; ++i) {
            const std::uint64_t t0 = tsc.now();
            const std::int64_t ns = monotonic_raw_ns();
            const std::uint64_t t1 = tsc.now();
            if (t1 - t0 < best_width) {
                best_width = t1 - t0;
                p = {t0 + (t1 - t0) / 2, ns};
            }
        }
        return p;
    };

    const auto slice = std::max(span, std::chrono::milliseconds(5)) / slices;
    std::array<Point, slices + 1> pts;
    pts[0] = point();
    for (int i = 1; i <= slices; ++i) {
        std::this_thread::sleep_for(slice);
        pts[i] = point();
    }

    const auto ticks = [&](int from, int to) { return static_cast<double>(pts[to].tsc - pts[from].tsc); };
    const auto nanos = [&](int from, int to) { return static_cast<double>(pts[to].ns - pts[from].ns); };
    const double span_ns = nanos(0, slices);
    fallback.calibration_ms = span_ns / 1e6;
    const double rate = ticks(0, slices) / span_ns;
    double spread_ppm = 0;
    for (int i = 1; i <= slices; ++i) {
        const double dns = nanos(i - 1, i);
        const double dtsc = ticks(i - 1, i);
        if (!(dns > 0) || !(dtsc > 0) || pts[i].tsc < pts[i - 1].tsc) {
            fallback.why = "the TSC did not advance during calibration";
            return Clock(false, std::move(fallback));
        }
        spread_ppm = std::max(spread_ppm, std::abs(dtsc / dns - rate) / rate * 1e6);
    }
    if (!(rate > 0) || spread_ppm > max_spread_ppm) {
        fallback.why = fmt::format("the TSC rate was not steady during calibration ({:.0f} ppm apart)", spread_ppm);
        return Clock(false, std::move(fallback));
    }

    ClockInfo info;
    info.source = "tsc";
    info.invariant_tsc = true;
    info.ticks_per_ns = rate;
    info.calibration_ms = fallback.calibration_ms;
    info.calibration_error_ppm = spread_ppm;
    info.why = fmt::format("invariant TSC at {:.3f} GHz", rate);
    if (facts.current_clocksource && *facts.current_clocksource != "tsc")
        info.why += fmt::format(" (kernel clocksource {})", *facts.current_clocksource);
    return Clock(true, std::move(info));
}

}  // namespace qps::perf
