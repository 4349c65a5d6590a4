// Distribution math for confidence intervals and significance tests (Student t, Welch).
#pragma once

#include <cstddef>

namespace bpfbench {

// Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1].
double incomplete_beta(double a, double b, double x);

// P(T <= t) for Student's t with `df` degrees of freedom (df may be fractional, > 0).
double student_t_cdf(double t, double df);

// The t with P(T <= t) = p, for p in (0, 1).
double student_t_quantile(double p, double df);

// Half-width of the two-sided confidence interval of a mean: t_{(1+conf)/2, n-1} * s / sqrt(n).
// 0 for n < 2.
double ci_half_width(double stddev, size_t n, double confidence = 0.95);

// Welch's unequal-variance t test of mean_b - mean_a.
struct WelchResult {
  double diff = 0;  // mean_b - mean_a
  double se = 0;    // standard error of diff
  double df = 0;    // Welch–Satterthwaite degrees of freedom
  double t = 0;
  double p_value = 1;              // two-sided
  double ci_low = 0, ci_high = 0;  // 95% CI of diff
};
WelchResult welch_t_test(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b,
                         double confidence = 0.95);

}  // namespace bpfbench
