/* Runs N marker pairs; run it under callgrind with two values of N and
 * subtract to get td's own instructions per pair (docs/performance.md).
 * With SIBLINGS > 1, the pairs cycle through that many regions under one
 * parent, so each pair looks up a different sibling. */
#include <stdio.h>
#include <stdlib.h>

#include <td/td.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  const long siblings = argc > 2 ? atol(argv[2]) : 1;
  if (siblings <= 1) {
    for (long i = 0; i < n; ++i) {
      TD_REGION_BEGIN("pair");
      TD_REGION_END("pair");
    }
    return 0;
  }
  td_site* sites = calloc((size_t)siblings, sizeof(td_site));
  char (*names)[24] = calloc((size_t)siblings, sizeof *names);
  if (sites == NULL || names == NULL) return 1;
  for (long s = 0; s < siblings; ++s) {
    snprintf(names[s], sizeof names[s], "r%ld", s);
    sites[s].name = names[s];
    sites[s].file = __FILE__;
    sites[s].line = __LINE__;
  }
  TD_REGION_BEGIN("parent");
  for (long s = 0; s < siblings; ++s) { /* every sibling exists before the measured pairs */
    td_region_begin(&sites[s]);
    td_region_end(&sites[s]);
  }
  for (long i = 0; i < n; ++i) {
    td_site* site = &sites[i % siblings];
    td_region_begin(site);
    td_region_end(site);
  }
  TD_REGION_END("parent");
  free(names);
  free(sites);
  return 0;
}
