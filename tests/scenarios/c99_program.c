/* Compiled as strict C99 to prove td.h is plain C. */
#include <td/td.h>

static int work(int n) {
  int sum = 0;
  TD_REGION_BEGIN("c_work");
  for (int i = 0; i < n; ++i) sum += i;
  TD_REGION_END("c_work");
  return sum;
}

int main(void) {
  int total = 0;
  for (int i = 0; i < 4; ++i) {
    TD_REGION_BEGIN_P("c_sweep", i);
    total += work(1000);
    TD_REGION_END_P("c_sweep", i);
  }
  td_finalize();
  return total == 4 * 499500 ? 0 : 1;
}
