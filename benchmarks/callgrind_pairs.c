/* Runs N marker pairs; run once with N=0 and once with N>0 under callgrind
 * --toggle-collect=td_region_* to get td's own instructions per pair. */
#include <stdlib.h>

#include <td/td.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  for (long i = 0; i < n; ++i) {
    TD_REGION_BEGIN("pair");
    TD_REGION_END("pair");
  }
  return 0;
}
