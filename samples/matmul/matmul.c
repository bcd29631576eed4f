/* Three versions of C = A × B, each in its own td region, as in the
 * matrix-multiply case study of the Top-Down paper: the naive ijk order,
 * the interchanged ikj order, and a blocked ikj order.
 *
 *   td_matmul [N]      (default N = 1024: B's column walk misses in L1 and L2)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

static void multiply1(int n, const double* a, const double* b, double* c) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j]; /* strided B */
      c[i * n + j] = sum;
    }
}

static void multiply2(int n, const double* a, const double* b, double* c) {
  memset(c, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j]; /* unit stride */
    }
}

static void multiply3(int n, const double* a, const double* b, double* c) {
  enum { kBlock = 64 };
  memset(c, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int ii = 0; ii < n; ii += kBlock)
    for (int kk = 0; kk < n; kk += kBlock)
      for (int i = ii; i < ii + kBlock && i < n; ++i)
        for (int k = kk; k < kk + kBlock && k < n; ++k) {
          const double aik = a[i * n + k];
          for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
        }
}

static double max_difference(int n, const double* x, const double* y) {
  double worst = 0.0;
  for (long i = 0; i < (long)n * n; ++i) worst = fmax(worst, fabs(x[i] - y[i]));
  return worst;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  if (n <= 0 || n > 8192) {
    fprintf(stderr, "usage: %s [N]  (1 <= N <= 8192)\n", argv[0]);
    return 2;
  }
  const size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
  double* a = malloc(bytes);
  double* b = malloc(bytes);
  double* c[3] = {malloc(bytes), malloc(bytes), malloc(bytes)};
  if (!a || !b || !c[0] || !c[1] || !c[2]) {
    fprintf(stderr, "out of memory for N=%d\n", n);
    return 1;
  }

  TD_REGION_BEGIN("matmul");
  TD_REGION_BEGIN("init");
  for (long i = 0; i < (long)n * n; ++i) {
    a[i] = (double)(i % 7) - 3.0;
    b[i] = (double)(i % 5) * 0.5;
  }
  TD_REGION_END("init");

  double seconds[3];
  double t = now_seconds();
  TD_REGION_BEGIN("multiply1");
  multiply1(n, a, b, c[0]);
  TD_REGION_END("multiply1");
  seconds[0] = now_seconds() - t;

  t = now_seconds();
  TD_REGION_BEGIN("multiply2");
  multiply2(n, a, b, c[1]);
  TD_REGION_END("multiply2");
  seconds[1] = now_seconds() - t;

  t = now_seconds();
  TD_REGION_BEGIN("multiply3");
  multiply3(n, a, b, c[2]);
  TD_REGION_END("multiply3");
  seconds[2] = now_seconds() - t;
  TD_REGION_END("matmul");

  const double diff = fmax(max_difference(n, c[0], c[1]), max_difference(n, c[0], c[2]));
  printf("matmul N=%d: multiply1 %.3f s, multiply2 %.3f s (%.2fx), multiply3 %.3f s (%.2fx)\n", n,
         seconds[0], seconds[1], seconds[0] / seconds[1], seconds[2], seconds[0] / seconds[2]);
  printf("results agree: %s (max difference %g)\n", diff <= 1e-9 * n ? "yes" : "NO", diff);
  free(a);
  free(b);
  for (int i = 0; i < 3; ++i) free(c[i]);
  return diff <= 1e-9 * n ? 0 : 1;
}
