// Built against an installed td, outside td's own build.
#include <td/td.hpp>

int main() {
  long sum = 0;
  for (int i = 0; i < 3; ++i) {
    TD_SCOPE("consumer_loop");
    for (int j = 0; j < 1000; ++j) sum += j;
  }
  return sum == 3 * 499500 ? 0 : 1;
}
