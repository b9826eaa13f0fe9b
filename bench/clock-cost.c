/* What one clock read costs: a million reads of clock_gettime(CLOCK_MONOTONIC_RAW),
 * of rdtsc (perftest's get_cycles) and of rdtscp (qpscope's TSC read), each
 * timed against CLOCK_MONOTONIC_RAW; best of 5 rounds and the median.
 * Prints one line per clock: "clock NAME ns_per_read_min ns_per_read_median".
 * Built by bench/latency (cc -O2), run in the lab by bench/latency-guest.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define READS 1000000
#define ROUNDS 5

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t sink;

static void gettime_reads(void)
{
    struct timespec ts;
    for (int i = 0; i < READS; ++i) {
        clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
        sink += (uint64_t)ts.tv_nsec;
    }
}

static void rdtsc_reads(void)
{
    for (int i = 0; i < READS; ++i) {
        unsigned lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        sink += lo;
    }
}

static void rdtscp_reads(void)
{
    for (int i = 0; i < READS; ++i) {
        unsigned lo, hi;
        __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
        sink += lo;
    }
}

static int cmp(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static void measure(const char* name, void (*reads)(void))
{
    double ns[ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) {
        int64_t t0 = now_ns();
        reads();
        ns[r] = (double)(now_ns() - t0) / READS;
    }
    qsort(ns, ROUNDS, sizeof ns[0], cmp);
    printf("clock %s %.1f %.1f\n", name, ns[0], ns[ROUNDS / 2]);
}

int main(void)
{
    measure("clock_gettime(CLOCK_MONOTONIC_RAW)", gettime_reads);
    measure("rdtsc", rdtsc_reads);
    measure("rdtscp", rdtscp_reads);
    return (int)(sink & 0);
}
