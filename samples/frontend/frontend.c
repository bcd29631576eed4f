/* A large-code program: thousands of distinct small functions called in
 * turn overflow the instruction caches and the decoded-uop cache (Frontend
 * Bound), against the same number of calls to one function.
 *
 *   td_frontend [ROUNDS]      (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

/* Each function differs in its constants, so the compiler cannot merge them.
 * Unsigned arithmetic: the mixing is meant to wrap around. */
#define TD_FN(n)                                                            \
  __attribute__((noinline)) static unsigned long f##n(unsigned long x) {    \
    x = x * (2u * n + 1u) + (n ^ 0x5bd1u);                                  \
    x ^= x >> ((n % 13) + 1);                                               \
    x = x * 0x9e3779b1ul + (n * 7u);                                        \
    x ^= x >> ((n % 11) + 3);                                               \
    return x + (n % 97);                                                    \
  }
#define TD_TEN(p) TD_FN(p##0) TD_FN(p##1) TD_FN(p##2) TD_FN(p##3) TD_FN(p##4) \
                  TD_FN(p##5) TD_FN(p##6) TD_FN(p##7) TD_FN(p##8) TD_FN(p##9)
#define TD_HUNDRED(p) TD_TEN(p##0) TD_TEN(p##1) TD_TEN(p##2) TD_TEN(p##3) TD_TEN(p##4) \
                      TD_TEN(p##5) TD_TEN(p##6) TD_TEN(p##7) TD_TEN(p##8) TD_TEN(p##9)
#define TD_THOUSAND(p) TD_HUNDRED(p##0) TD_HUNDRED(p##1) TD_HUNDRED(p##2) TD_HUNDRED(p##3) \
                       TD_HUNDRED(p##4) TD_HUNDRED(p##5) TD_HUNDRED(p##6) TD_HUNDRED(p##7) \
                       TD_HUNDRED(p##8) TD_HUNDRED(p##9)
TD_THOUSAND(1)
TD_THOUSAND(2)
TD_THOUSAND(3)
TD_THOUSAND(4)

#define TD_PTR(n) f##n,
#define TD_PTEN(p) TD_PTR(p##0) TD_PTR(p##1) TD_PTR(p##2) TD_PTR(p##3) TD_PTR(p##4) \
                   TD_PTR(p##5) TD_PTR(p##6) TD_PTR(p##7) TD_PTR(p##8) TD_PTR(p##9)
#define TD_PHUNDRED(p) TD_PTEN(p##0) TD_PTEN(p##1) TD_PTEN(p##2) TD_PTEN(p##3) TD_PTEN(p##4) \
                       TD_PTEN(p##5) TD_PTEN(p##6) TD_PTEN(p##7) TD_PTEN(p##8) TD_PTEN(p##9)
#define TD_PTHOUSAND(p) TD_PHUNDRED(p##0) TD_PHUNDRED(p##1) TD_PHUNDRED(p##2) TD_PHUNDRED(p##3) \
                        TD_PHUNDRED(p##4) TD_PHUNDRED(p##5) TD_PHUNDRED(p##6) TD_PHUNDRED(p##7) \
                        TD_PHUNDRED(p##8) TD_PHUNDRED(p##9)

typedef unsigned long (*function)(unsigned long);
static function g_functions[] = {TD_PTHOUSAND(1) TD_PTHOUSAND(2) TD_PTHOUSAND(3) TD_PTHOUSAND(4)};
enum { kFunctions = sizeof(g_functions) / sizeof(g_functions[0]) };

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? atol(argv[1]) : 2000;
  if (rounds < 1) {
    fprintf(stderr, "usage: %s [ROUNDS >= 1]\n", argv[0]);
    return 2;
  }
  /* Same number of calls both ways; only the code footprint differs. */
  double t = now_seconds();
  unsigned long many = 0;
  TD_REGION_BEGIN("many_functions");
  for (long r = 0; r < rounds; ++r) {
    for (int i = 0; i < kFunctions; ++i) many += g_functions[i]((unsigned long)(r + i));
  }
  TD_REGION_END("many_functions");
  const double many_s = now_seconds() - t;

  t = now_seconds();
  unsigned long one = 0;
  volatile function single = g_functions[0];
  TD_REGION_BEGIN("one_function");
  for (long r = 0; r < rounds; ++r) {
    for (int i = 0; i < kFunctions; ++i) one += single((unsigned long)(r + i));
  }
  TD_REGION_END("one_function");
  const double one_s = now_seconds() - t;

  printf("frontend: %d distinct functions × %ld rounds %.3f s; one function, same calls %.3f s (%.2fx)\n",
         kFunctions, rounds, many_s, one_s, many_s / one_s);
  printf("checksums: %lu %lu\n", many, one);
  return 0;
}
