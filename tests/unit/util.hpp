// Small helpers shared by the unit tests.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace qps::test {

// The deadline of a wait that only guards against a hang (another thread
// that answers at once when it runs): far beyond any time a loaded host
// keeps a runnable thread off its CPUs, so only a real hang reaches it.
inline constexpr std::chrono::milliseconds hang_guard{30000};

// How the calling thread spent the time since construction, as the kernel
// accounts it (/proc/thread-self/schedstat): on a CPU, waiting for one
// (runnable while other threads had the CPUs: a loaded host), or neither:
// blocked, asleep in a poll, a sleep or a wait. A check that a call ends
// soon after its deadline bounds the time it was blocked: the scheduler
// keeping the thread off the CPUs does not lengthen that, a call that
// sleeps past its deadline or waits for something else does.
class ThreadTime {
public:
    ThreadTime() : start_(sched()), wall_(std::chrono::steady_clock::now()) {}

    // Milliseconds blocked since construction (the wall time is read inside
    // the kernel's, so it is never overestimated); 0 where the kernel does
    // not account a thread's time (then only the test's hang guard holds).
    long blocked_ms() const
    {
        const auto wall = std::chrono::steady_clock::now() - wall_;
        const std::optional<Sched> end = sched();
        if (!start_ || !end)
            return 0;
        const std::chrono::nanoseconds busy((end->on_cpu - start_->on_cpu) + (end->waiting - start_->waiting));
        const auto blocked = std::chrono::duration_cast<std::chrono::milliseconds>(wall - busy).count();
        return blocked > 0 ? static_cast<long>(blocked) : 0;
    }

private:
    struct Sched {
        long long on_cpu = 0, waiting = 0;  // ns
    };
    static std::optional<Sched> sched()
    {
        std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
        if (!f)
            return std::nullopt;
        Sched s;
        const bool read = std::fscanf(f, "%lld %lld", &s.on_cpu, &s.waiting) == 2;
        std::fclose(f);
        if (!read || s.on_cpu == 0)  // "0 0 0": not accounted
            return std::nullopt;
        return s;
    }

    std::optional<Sched> start_;
    std::chrono::steady_clock::time_point wall_;
};

inline bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

// The message of the E that f() throws, or "<nothing thrown>".
template <class E, class F>
std::string thrown(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "<nothing thrown>";
}

}  // namespace qps::test
