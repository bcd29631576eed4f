/* A program instrumented with PAPI's high-level API the way PAPI documents it:
 * nested regions, PAPI_hl_read inside regions, regions in pthreads, misuse
 * (an end without a begin, a begin while open, a null name), PAPI_hl_stop,
 * then a look at the low-level API. Built against the real libpapi. Lines
 * starting "rc:" hold return codes, which depend on who answers (the real
 * PAPI fails outright without a PMU); every other line, and the exit status
 * 4, must not change under td. */
#include <papi.h>
#include <pthread.h>
#include <stdio.h>

static volatile double sink;

static void work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  sink = s;
}

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) {
    PAPI_hl_region_begin("worker");
    work(50000);
    PAPI_hl_region_end("worker");
  }
  return NULL;
}

int main(void) {
  int ok = 0;
  ok += PAPI_hl_region_begin("main") == PAPI_OK;
  for (int i = 0; i < 3; ++i) {
    ok += PAPI_hl_region_begin("step") == PAPI_OK;
    work(100000);
    if (i == 0) ok += PAPI_hl_read("step") == PAPI_OK;
    ok += PAPI_hl_region_end("step") == PAPI_OK;
  }
  ok += PAPI_hl_read("main") == PAPI_OK;
  ok += PAPI_hl_region_end("main") == PAPI_OK;
  printf("rc: ok calls %d of 10\n", ok);

  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, worker, NULL);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);

  printf("rc: end never begun %d\n", PAPI_hl_region_end("never_begun"));
  printf("rc: read never begun %d\n", PAPI_hl_read("never_begun"));
  printf("rc: begin dup %d\n", PAPI_hl_region_begin("dup"));
  printf("rc: begin dup again %d\n", PAPI_hl_region_begin("dup"));
  printf("rc: end dup %d\n", PAPI_hl_region_end("dup"));
  printf("rc: end null %d\n", PAPI_hl_region_end(NULL));
  printf("rc: stop %d\n", PAPI_hl_stop());
  printf("rc: stop again %d\n", PAPI_hl_stop());
  printf("rc: begin after stop %d\n", PAPI_hl_region_begin("late"));
  printf("rc: low-level initialised %d\n", PAPI_is_initialized() != PAPI_NOT_INITED);
  printf("papi_hl done\n");
  return 4;
}
