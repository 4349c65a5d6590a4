#include "results/stat_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bpfbench {

namespace {

// Continued fraction of the incomplete beta (modified Lentz), valid for x < (a+1)/(a+b+2).
double beta_cf(double a, double b, double x) {
  constexpr int kMaxIter = 300;
  constexpr double kEps = 1e-15, kTiny = 1e-300;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= kMaxIter; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double ln_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  double front = std::exp(ln_front);
  // The continued fraction converges fast only on one side; use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
  return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || df <= 0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));  // P(T > |t|)
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (p <= 0 || p >= 1 || df <= 0) return std::numeric_limits<double>::quiet_NaN();
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bisection: the CDF is monotonic and 1e7 bounds every quantile used here (df >= 1).
  double lo = 0, hi = 1e7;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, lo); ++i) {
    double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double ci_half_width(double stddev, size_t n, double confidence) {
  if (n < 2) return 0;
  double t = student_t_quantile((1 + confidence) / 2, double(n - 1));
  return t * stddev / std::sqrt(double(n));
}

WelchResult welch_t_test(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b,
                         double confidence) {
  WelchResult r;
  r.diff = mean_b - mean_a;
  if (n_a < 2 || n_b < 2) {
    // No variance estimate: nothing can be called significant.
    r.p_value = 1;
    r.ci_low = -std::numeric_limits<double>::infinity();
    r.ci_high = std::numeric_limits<double>::infinity();
    return r;
  }
  double va = sd_a * sd_a / double(n_a), vb = sd_b * sd_b / double(n_b);
  r.se = std::sqrt(va + vb);
  if (r.se == 0) {
    // Both samples constant: any difference is exact.
    r.df = double(n_a + n_b - 2);
    r.p_value = r.diff == 0 ? 1 : 0;
    r.t = r.diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), r.diff);
    r.ci_low = r.ci_high = r.diff;
    return r;
  }
  r.df = (va + vb) * (va + vb) / (va * va / double(n_a - 1) + vb * vb / double(n_b - 1));
  r.t = r.diff / r.se;
  r.p_value = 2 * (1 - student_t_cdf(std::fabs(r.t), r.df));
  double q = student_t_quantile((1 + confidence) / 2, r.df);
  r.ci_low = r.diff - q * r.se;
  r.ci_high = r.diff + q * r.se;
  return r;
}

}  // namespace bpfbench
