/* Built with pkg-config against an installed td; the test expects 4 calls. */
#include <td/td.h>

int main(void) {
  volatile long sum = 0;
  for (int i = 0; i < 4; ++i) {
    TD_REGION_BEGIN("pkgconfig_region");
    for (int j = 0; j < 1000; ++j) sum += j;
    TD_REGION_END("pkgconfig_region");
  }
  return sum == 4 * 499500 ? 0 : 1;
}
