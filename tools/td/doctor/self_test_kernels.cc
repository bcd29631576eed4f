// td-self-test: small kernels whose Top-Down signature is known, each in a
// region of its own, for `td doctor --self-test` to run under `td run` and
// check where each lands. Sizes follow the last-level cache so that the
// memory kernels miss it on any machine; --quick shrinks the work (tests).
#include <td/td.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

namespace {

uint64_t Next(uint64_t* state) {  // xorshift64: the same data on every run
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

size_t LastLevelCacheBytes() {
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const long biggest = std::max({l3, l2, 8L << 20});
  return static_cast<size_t>(biggest);
}

// A random cycle through an array 4× the last-level cache: every load waits
// for the one before it, and most miss to DRAM.
uint64_t PointerChase(size_t bytes, size_t steps) {
  const size_t n = bytes / sizeof(uint64_t);
  std::vector<uint64_t> next(n);
  for (size_t i = 0; i < n; ++i) next[i] = i;
  uint64_t seed = 88172645463325252ull;
  for (size_t i = n - 1; i > 0; --i) std::swap(next[i], next[Next(&seed) % i]);  // Sattolo: one cycle
  uint64_t p = 0;
  TD_REGION_BEGIN("pointer_chase");
  for (size_t s = 0; s < steps; ++s) p = next[p];
  TD_REGION_END("pointer_chase");
  return p;
}

// A branch on random bytes: taken half the time, at random, so about every
// second one is mispredicted. The empty asm keeps the compiler from turning
// the branch into a conditional move.
uint64_t RandomBranch(size_t n, int passes) {
  std::vector<uint8_t> v(n);
  uint64_t seed = 2463534242ull;
  for (auto& b : v) b = static_cast<uint8_t>(Next(&seed));
  uint64_t sum = 0;
  TD_REGION_BEGIN("random_branch");
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < n; ++i) {
      if (v[i] < 128) {
        sum += v[i];
        asm volatile("" : "+r"(sum));
      } else {
        sum ^= v[i];
      }
    }
  }
  TD_REGION_END("random_branch");
  return sum;
}

// 2,048 distinct functions (each constant differs, so none are folded into
// one) called in a scattered order: several hundred KiB of code, far more
// than the instruction cache holds.
template <unsigned N>
__attribute__((noinline)) unsigned Scattered(unsigned x) {
#pragma GCC unroll 24
  for (unsigned k = 1; k <= 24; ++k) x = (x ^ (N * 2654435761u + k)) * (2 * N + 2 * k + 1);
  return x;
}

template <size_t... I>
constexpr std::array<unsigned (*)(unsigned), sizeof...(I)> ScatteredTable(std::index_sequence<I...>) {
  return {&Scattered<static_cast<unsigned>(I)>...};
}

unsigned CodeFootprint(size_t calls) {
  static constexpr auto kTable = ScatteredTable(std::make_index_sequence<2048>());
  unsigned x = 1;
  TD_REGION_BEGIN("code_footprint");
  for (size_t i = 0; i < calls; ++i) x = kTable[(i * 1103) & (kTable.size() - 1)](x);
  TD_REGION_END("code_footprint");
  return x;
}

// Eight independent multiply-add chains on registers: the core retires
// nearly every slot.
double DenseArithmetic(size_t iterations) {
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const double m = 0.999999, c = 1e-7;
  TD_REGION_BEGIN("dense_fma");
  for (size_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 8
    for (double& x : a) x = x * m + c;
  }
  TD_REGION_END("dense_fma");
  double s = 0;
  for (double x : a) s += x;
  return s;
}

// Two threads, each incrementing its own counter, on one cache line.
struct SharedLine {
  alignas(64) std::atomic<uint64_t> counter[2];
};

uint64_t FalseSharing(size_t increments) {
  SharedLine line;
  line.counter[0] = 0;
  line.counter[1] = 0;
  auto work = [&line, increments](int t) {
    TD_REGION_BEGIN("false_sharing");
    for (size_t i = 0; i < increments; ++i) line.counter[t].fetch_add(1, std::memory_order_relaxed);
    TD_REGION_END("false_sharing");
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  return line.counter[0] + line.counter[1];
}

// The STREAM triad over three arrays, each 4× the last-level cache.
double Stream(size_t bytes, int passes) {
  const size_t n = bytes / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  TD_REGION_BEGIN("stream");
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
  }
  TD_REGION_END("stream");
  return a[n / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (argc > 2 || (argc == 2 && !quick)) {
    std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
    return 2;
  }
  const size_t llc = LastLevelCacheBytes();
  const size_t memory = quick ? llc : std::min<size_t>(4 * llc, size_t{1} << 30);
  const size_t scale = quick ? 1 : 8;
  double sink = 0;
  sink += static_cast<double>(PointerChase(memory, 1000000 * scale));
  sink += static_cast<double>(RandomBranch(4000000 * scale, 2));
  sink += CodeFootprint(2000000 * scale);
  sink += DenseArithmetic(20000000 * scale);
  sink += static_cast<double>(FalseSharing(8000000 * scale));
  sink += Stream(memory / 3, quick ? 1 : 4);
  std::printf("td-self-test: 6 kernels ran (last-level cache %zu KiB, arrays %zu MiB; checksum %g)\n",
              llc >> 10, memory >> 20, sink);
  return 0;
}
