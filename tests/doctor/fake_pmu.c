/* A PMU that is not there, for `td doctor`'s tests: preloaded, it answers
 * perf_event_open (td calls it through syscall()) as a machine would that
 * FAKE_PMU describes, and passes every other system call on.
 *
 *   FAKE_PMU_COUNTERS=N         hardware events open; a group holds N
 *   FAKE_PMU_HARDWARE_ERRNO=E   every hardware event fails with errno E
 *   FAKE_PMU_SOFTWARE_ERRNO=E   software events fail with errno E
 *   FAKE_PMU_REFUSE=C:E,...     raw configs C (hex) fail with errno E
 *
 * Opened events are /dev/null descriptors: this fakes only the opening. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS 4096
static int members[MAX_FDS]; /* leader fd -> events in its group */

static int EnvInt(const char* name, int fallback) {
  const char* v = getenv(name);
  return v != NULL && *v != '\0' ? atoi(v) : fallback;
}

/* The errno FAKE_PMU_REFUSE gives `config`, 0 when it lists none. */
static int RefusedWith(unsigned long long config) {
  const char* list = getenv("FAKE_PMU_REFUSE");
  while (list != NULL && *list != '\0') {
    char* end = NULL;
    const unsigned long long c = strtoull(list, &end, 16);
    if (end == NULL || *end != ':') return 0;
    const int err = (int)strtol(end + 1, &end, 10);
    if (c == config) return err;
    list = (end != NULL && *end == ',') ? end + 1 : NULL;
  }
  return 0;
}

static long FakePerfEventOpen(struct perf_event_attr* attr, int group_fd) {
  const int software = attr->type == PERF_TYPE_SOFTWARE;
  int err = software ? EnvInt("FAKE_PMU_SOFTWARE_ERRNO", 0) : EnvInt("FAKE_PMU_HARDWARE_ERRNO", 0);
  if (err == 0 && !software) err = RefusedWith(attr->config);
  if (err == 0 && !software && group_fd >= 0 && group_fd < MAX_FDS &&
      members[group_fd] >= EnvInt("FAKE_PMU_COUNTERS", 4)) {
    err = EINVAL; /* the kernel's group validation: more events than counters */
  }
  if (err != 0) {
    errno = err;
    return -1;
  }
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && fd < MAX_FDS) {
    members[fd] = 1;
    if (group_fd >= 0 && group_fd < MAX_FDS && !software) ++members[group_fd];
  }
  return fd;
}

long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_perf_event_open) return FakePerfEventOpen((struct perf_event_attr*)a[0], (int)a[3]);
  static long (*real)(long, ...) = NULL;
  if (real == NULL) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
