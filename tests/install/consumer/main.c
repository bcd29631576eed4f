/* Built with pkg-config against an installed td. */
#include <td/td.h>

int main(void) {
  TD_REGION_BEGIN("pkgconfig_region");
  TD_REGION_END("pkgconfig_region");
  return 0;
}
