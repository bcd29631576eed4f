// Built through find_package(td), outside td's own build; the test expects
// 3 calls of consumer_loop.
#include <td/td.hpp>

int main() {
  long sum = 0;
  for (int i = 0; i < 3; ++i) {
    TD_SCOPE("consumer_loop");
    for (int j = 0; j < 1000; ++j) sum += j;
  }
  return sum == 3 * 499500 ? 0 : 1;
}
