#include "src/report/histogram.hpp"

#include <cmath>
#include <utility>

namespace qps::report {

namespace {

// Fresh pages written once here, not on the first sample that lands in them.
std::unique_ptr<std::uint64_t[]> zeroed_counts()
{
    std::unique_ptr<std::uint64_t[]> counts(new std::uint64_t[LatencyHistogram::bucket_count]);
    std::fill_n(counts.get(), LatencyHistogram::bucket_count, std::uint64_t{0});
    return counts;
}

// The middle of a bucket (rounded down): within half a width of any value in it.
std::uint64_t middle(const LatencyHistogram::Bucket& b) { return b.low_ns + (b.high_ns - b.low_ns) / 2; }

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(zeroed_counts()) {}

LatencyHistogram::LatencyHistogram(const LatencyHistogram& other)
    : counts_(new std::uint64_t[bucket_count]),
      count_(other.count_),
      sum_(other.sum_),
      min_(other.min_),
      max_(other.max_),
      mean_(other.mean_),
      m2_(other.m2_),
      sum_wrapped_(other.sum_wrapped_),
      overflow_(other.overflow_)
{
    std::copy_n(other.counts_.get(), bucket_count, counts_.get());
}

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other)
{
    if (this == &other)
        return *this;
    std::copy_n(other.counts_.get(), bucket_count, counts_.get());
    count_ = other.count_;
    sum_ = other.sum_;
    min_ = other.min_;
    max_ = other.max_;
    mean_ = other.mean_;
    m2_ = other.m2_;
    sum_wrapped_ = other.sum_wrapped_;
    overflow_ = other.overflow_;
    return *this;
}

LatencyHistogram& LatencyHistogram::operator=(LatencyHistogram&& other) noexcept
{
    std::swap(counts_, other.counts_);
    std::swap(count_, other.count_);
    std::swap(sum_, other.sum_);
    std::swap(min_, other.min_);
    std::swap(max_, other.max_);
    std::swap(mean_, other.mean_);
    std::swap(m2_, other.m2_);
    std::swap(sum_wrapped_, other.sum_wrapped_);
    std::swap(overflow_, other.overflow_);
    return *this;
}

void LatencyHistogram::merge(const LatencyHistogram& other)
{
    // Copies first: `other` may be *this.
    const std::uint64_t n_b = other.count_;
    if (n_b == 0)
        return;
    const std::uint64_t n_a = count_;
    const double mean_b = other.mean_, m2_b = other.m2_;
    const std::uint64_t sum_b = other.sum_;

    for (std::size_t i = 0; i < bucket_count; ++i)
        counts_[i] += other.counts_[i];
    overflow_ += other.overflow_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    const std::uint64_t sum = sum_ + sum_b;
    sum_wrapped_ = sum_wrapped_ || other.sum_wrapped_ || sum < sum_b;
    sum_ = sum;
    count_ = n_a + n_b;

    if (n_a == 0) {
        mean_ = mean_b;
        m2_ = m2_b;
        return;
    }
    // Chan, Golub, LeVeque: combine two (n, mean, M2) triples.
    const double na = static_cast<double>(n_a), nb = static_cast<double>(n_b), n = na + nb;
    const double delta = mean_b - mean_;
    mean_ += delta * (nb / n);
    m2_ += m2_b + delta * delta * (na * nb / n);
}

void LatencyHistogram::reset() noexcept
{
    std::fill_n(counts_.get(), bucket_count, std::uint64_t{0});
    count_ = 0;
    sum_ = 0;
    min_ = UINT64_MAX;
    max_ = 0;
    mean_ = 0;
    m2_ = 0;
    sum_wrapped_ = false;
    overflow_ = 0;
}

double LatencyHistogram::mean() const noexcept
{
    if (count_ == 0)
        return 0;
    if (sum_wrapped_)
        return mean_;
    return static_cast<double>(sum_) / static_cast<double>(count_);
}

double LatencyHistogram::stddev() const noexcept
{
    if (count_ < 2)
        return 0;
    return std::sqrt(std::max(0.0, m2_) / static_cast<double>(count_ - 1));
}

std::uint64_t LatencyHistogram::quantile(double q) const noexcept
{
    if (count_ == 0)
        return 0;
    if (!(q > 0))
        return min_;
    if (q >= 1)
        return max_;
    // ceil(q * count), forgiving the few ulps by which q * count can land
    // just above an integer (0.9999 is stored as 0.99990000000000001):
    // 1e-14 relative is less than one sample below 10^14 samples.
    const double x = q * static_cast<double>(count_);
    const double ceiling = std::ceil(x - x * 1e-14);
    const std::uint64_t rank = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(ceiling), 1, count_);

    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bucket_count; ++i) {
        seen += counts_[i];
        if (seen >= rank)
            return std::clamp(middle(bounds_of(i)), min_, max_);
    }
    return max_;  // among the overflowed samples
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::nonempty_buckets() const
{
    std::vector<Bucket> out;
    for (std::size_t i = 0; i < bucket_count; ++i)
        if (counts_[i]) {
            Bucket b = bounds_of(i);
            b.count = counts_[i];
            out.push_back(b);
        }
    if (overflow_)
        out.push_back({trackable_limit, max_, overflow_});
    return out;
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::coarse(std::size_t max_rows) const
{
    if (max_rows == 0 || count_ == 0)
        return {};
    if (max_rows == 1)
        return {{min_, max_, count_}};

    std::vector<Bucket> fine = nonempty_buckets();
    if (overflow_)
        fine.pop_back();
    const std::size_t rows_in_range = max_rows - (overflow_ ? 1 : 0);

    std::vector<Bucket> rows;
    if (fine.size() <= rows_in_range) {
        rows = std::move(fine);
    } else {
        // Log-spaced edges from the lowest to one past the highest bucketed
        // value, each moved down to the bucket boundary at or below it.
        const std::uint64_t lo = fine.front().low_ns, end = fine.back().high_ns + 1;
        const double a = static_cast<double>(std::max<std::uint64_t>(lo, 1)), b = static_cast<double>(end);
        std::vector<std::uint64_t> edges{lo};
        for (std::size_t j = 1; j < rows_in_range; ++j) {
            const double x = a * std::pow(b / a, static_cast<double>(j) / static_cast<double>(rows_in_range));
            const auto v = static_cast<std::uint64_t>(std::ceil(x));
            if (v >= end)
                break;
            const std::uint64_t edge = bounds_of(index_of(v)).low_ns;
            if (edge > edges.back())
                edges.push_back(edge);
        }
        edges.push_back(end);

        for (std::size_t k = 0; k + 1 < edges.size(); ++k)
            rows.push_back({edges[k], edges[k + 1] - 1, 0});
        std::size_t k = 0;
        for (const Bucket& f : fine) {
            while (f.low_ns > rows[k].high_ns)
                ++k;
            rows[k].count += f.count;
        }
    }
    if (overflow_)
        rows.push_back({trackable_limit, max_, overflow_});
    return rows;
}

}  // namespace qps::report
