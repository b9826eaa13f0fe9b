// Latency histogram: every sample, bounded memory, exact extremes.
//
// Layout (log-linear, like HdrHistogram with 2^10 sub-buckets per octave):
// values 0..2047 ns each have a counter of their own; above that, every
// power-of-two range [2^k, 2^(k+1)) is split into 1024 equal buckets of
// width 2^(k-10). A bucket's width is at most 1/1024 of its lowest value, so
// the value reported for it (the middle) is within 1/2048 (0.05 %) of any
// value in it, and even the bucket's two ends are within 0.1 % of each
// other. Tracked range: 0 .. 2^42 - 1 ns (73.3 minutes); larger values go
// to overflow() and still update min, max, mean and stddev.
//
// Memory: 33,792 counters x 8 bytes = 270,336 bytes (264 KiB), allocated
// and written once in the constructor (so the hot loop never takes a page
// fault on a fresh page), whatever the run length. uint64 counters: no
// bucket saturates in any realistic run.
//
// Exact statistics beside the buckets:
//   - min and max: exact (perftest drops its two largest samples; we don't).
//   - mean: an exact integer sum / count (one rounding). Should the uint64
//     sum ever wrap (2^64 ns = 584 years of summed latency; only garbage
//     values can do it) the Welford mean below is used instead.
//   - stddev: sample standard deviation (n - 1), from Welford's running
//     mean and M2 in double. Sum/sum-of-squares cancels: its relative
//     error is about eps * (mean/stddev)^2, and 10^8 samples of 10^5 ns have a
//     sum of squares (10^18) past double's exact 2^53. It would be fine in
//     x87 long double, but long double is software quad precision on
//     aarch64 (BlueField, Grace): too slow for the record path. Welford
//     never subtracts two large nearly equal numbers; its error grows at
//     worst like n * eps (~1e-8 relative after 10^8 samples), typically
//     like sqrt(n) * eps, in plain double, for one division per sample.
//     Merging uses Chan et al.'s pairwise update.
//
// record() is inline, allocation-free, branch-light: a few integer and
// floating-point operations, one count-leading-zeros, one increment.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace qps::report {

class alignas(64) LatencyHistogram {
public:
    static constexpr double max_relative_error = 0.001;
    static constexpr unsigned sub_bucket_bits = 10;  // 1024 buckets per octave
    static constexpr unsigned range_bits = 42;       // values < 2^42 ns are bucketed
    static constexpr std::uint64_t trackable_limit = std::uint64_t{1} << range_bits;  // first overflowing value
    static constexpr std::size_t bucket_count = std::size_t{range_bits - sub_bucket_bits + 1} << sub_bucket_bits;
    static constexpr std::size_t counts_bytes = bucket_count * sizeof(std::uint64_t);
    static_assert(counts_bytes == 270'336 && counts_bytes < (1u << 20));

    // One bucket: values low_ns..high_ns, both inclusive. The overflow row of
    // nonempty_buckets()/coarse() is trackable_limit..max().
    struct Bucket {
        std::uint64_t low_ns, high_ns, count;
    };

    LatencyHistogram();
    LatencyHistogram(const LatencyHistogram& other);
    LatencyHistogram& operator=(const LatencyHistogram& other);     // no allocation
    LatencyHistogram& operator=(LatencyHistogram&& other) noexcept;  // swaps
    // No move constructor on purpose: moving from would leave a histogram
    // without counters, which record() does not check for. Rvalues copy.
    ~LatencyHistogram() = default;

    void record(std::uint64_t ns) noexcept
    {
        const std::uint64_t n = ++count_;
        const std::uint64_t sum = sum_ + ns;
        sum_wrapped_ = sum_wrapped_ || sum < ns;
        sum_ = sum;
        min_ = ns < min_ ? ns : min_;
        max_ = ns > max_ ? ns : max_;
        const double x = static_cast<double>(ns);
        const double delta = x - mean_;
        mean_ += delta / static_cast<double>(n);
        m2_ += delta * (x - mean_);
        if (ns < trackable_limit) [[likely]]
            ++counts_[index_of(ns)];
        else
            ++overflow_;
    }

    // Adds other's samples; merging a histogram into itself doubles it.
    void merge(const LatencyHistogram& other);
    void reset() noexcept;

    std::uint64_t count() const noexcept { return count_; }
    std::uint64_t min() const noexcept { return count_ ? min_ : 0; }  // 0 when empty
    std::uint64_t max() const noexcept { return max_; }               // 0 when empty
    double mean() const noexcept;    // 0 when empty
    double stddev() const noexcept;  // sample (n - 1) standard deviation; 0 below two samples
    std::uint64_t overflow() const noexcept { return overflow_; }

    // The value at quantile q in [0,1]: the smallest recorded value v with at
    // least ceil(q * count) samples <= v, reported as the middle of v's
    // bucket clamped to [min, max] (so within max_relative_error of v, and
    // exact below 2048 ns). q <= 0 (or NaN) gives the exact min, q >= 1 the
    // exact max, a rank that falls among overflowed samples the max, an
    // empty histogram 0. Scans the counters: for reports, not the hot loop.
    std::uint64_t quantile(double q) const noexcept;

    // Every bucket with a sample, ascending, then one overflow row if any.
    // The counts add up to count().
    std::vector<Bucket> nonempty_buckets() const;
    // At most max_rows ascending rows for an ASCII histogram, counts adding
    // up to count(). Rows are log-spaced between the lowest and highest
    // bucketed value (edges on bucket boundaries; empty rows inside the
    // range are kept, so gaps show), plus an overflow row if any. When the
    // nonempty buckets already fit they are returned as they are; with
    // max_rows == 1, one row min()..max(); with 0, none. Rows are contiguous
    // except when the nonempty buckets are returned as they are.
    std::vector<Bucket> coarse(std::size_t max_rows) const;

    // The bucket layout, public for tests and reports.
    static constexpr std::size_t index_of(std::uint64_t ns) noexcept
    {
        // Number of doublings above the unit-width region, 0 below 2048.
        const unsigned shift = static_cast<unsigned>(std::bit_width(ns | unit_mask)) - (sub_bucket_bits + 1);
        return (static_cast<std::size_t>(shift) << sub_bucket_bits) + static_cast<std::size_t>(ns >> shift);
    }
    static constexpr Bucket bounds_of(std::size_t index) noexcept
    {
        if (index <= unit_mask)
            return {index, index, 0};
        const unsigned shift = static_cast<unsigned>(index >> sub_bucket_bits) - 1;
        const std::uint64_t low = static_cast<std::uint64_t>(index - (std::size_t{shift} << sub_bucket_bits)) << shift;
        return {low, low + (std::uint64_t{1} << shift) - 1, 0};
    }

private:
    static constexpr std::uint64_t unit_mask = (std::uint64_t{2} << sub_bucket_bits) - 1;  // 2047

    // The record path's fields share the first cache line.
    std::unique_ptr<std::uint64_t[]> counts_;
    std::uint64_t count_ = 0;
    std::uint64_t sum_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    std::uint64_t max_ = 0;
    double mean_ = 0;  // Welford running mean
    double m2_ = 0;    // Welford sum of squared deviations
    bool sum_wrapped_ = false;
    std::uint64_t overflow_ = 0;
};

}  // namespace qps::report
