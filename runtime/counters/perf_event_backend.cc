#include "runtime/counters/perf_event_backend.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/counters/availability.h"

namespace td {

CounterLayout SoftwareLayout() {
  auto software = [](const char* name, uint64_t config, const char* unit) {
    EventInfo e;
    e.name = name;
    e.unit = unit;
    e.perf_type = PERF_TYPE_SOFTWARE;
    e.perf_config = config;
    return e;
  };
  // page-faults leads, not task-clock: in a task-clock-led group the kernel
  // never counts context-switches (measured: 0 across a 50 ms sleep, against
  // 1 for the same event alone or in a group led by any other software event).
  CounterLayout layout;
  layout.AddGroup({software("page-faults", PERF_COUNT_SW_PAGE_FAULTS, "count"),
                   software("task-clock", PERF_COUNT_SW_TASK_CLOCK, "ns"),
                   software("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "count"),
                   software("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "count")});
  return layout;
}

namespace {

class PerfThreadCounters final : public ThreadCounters {
 public:
  PerfThreadCounters(const CounterLayout& layout, std::vector<int> leader_fds,
                     std::vector<int> all_fds, std::string unopened)
      : all_fds_(std::move(all_fds)), unopened_(std::move(unopened)) {
    for (size_t g = 0; g < leader_fds.size(); ++g) {
      if (leader_fds[g] < 0) continue;  // not opened: its block stays 0, "not measured"
      const GroupInfo& group = layout.groups[g];
      reads_.push_back({leader_fds[g], group.word_offset,
                        (CounterLayout::kHeaderWords + group.num_events) * sizeof(uint64_t)});
    }
  }
  ~PerfThreadCounters() override {
    for (int fd : all_fds_) close(fd);
  }

  // One read() per group, straight into the snapshot.
  bool Read(uint64_t* snapshot) override {
    bool ok = true;
    for (const GroupRead& r : reads_) {
      ok &= read(r.fd, snapshot + r.word_offset, r.bytes) == static_cast<ssize_t>(r.bytes);
    }
    return ok;
  }
  std::string Unopened() const override { return unopened_; }

 private:
  struct GroupRead {
    int fd;
    size_t word_offset;
    size_t bytes;
  };
  std::vector<GroupRead> reads_;
  std::vector<int> all_fds_;
  std::string unopened_;
};

class PerfEventBackend final : public CounterBackend {
 public:
  PerfEventBackend(CounterLayout layout, Availability availability, PerfEventOpenFn open_fn)
      : layout_(std::move(layout)), availability_(std::move(availability)), open_fn_(open_fn) {}

  std::string_view name() const override { return "perf_event"; }
  const CounterLayout& layout() const override { return layout_; }
  const Availability& availability() const override { return availability_; }

  // A group that cannot be opened is left out on this thread (and said so);
  // the others still count. Only when none opens is the thread unmeasured.
  absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() override {
    std::vector<int> leaders;
    std::vector<int> all;
    std::vector<std::string> failures;
    for (const GroupInfo& group : layout_.groups) {
      std::vector<int> fds;
      std::string failure;
      for (size_t i = 0; i < group.num_events && failure.empty(); ++i) {
        const EventInfo& event = layout_.events[group.first_event + i];
        const int fd = OpenEvent(event, fds.empty() ? -1 : fds.front());
        if (fd < 0) {
          const int err = errno;
          failure = absl::StrFormat("perf_event_open(%s) failed with %s (%s)", event.name, ErrnoName(err),
                                    std::strerror(err));
        } else {
          fds.push_back(fd);
        }
      }
      if (!failure.empty()) {
        for (int fd : fds) close(fd);
        failures.push_back(std::move(failure));
        leaders.push_back(-1);
        continue;
      }
      leaders.push_back(fds.empty() ? -1 : fds.front());
      all.insert(all.end(), fds.begin(), fds.end());
    }
    if (all.empty() && !failures.empty()) return absl::UnavailableError(failures.front());
    std::string unopened;
    if (!failures.empty()) {
      unopened = absl::StrFormat("%d of %d groups not opened: %s", failures.size(), layout_.groups.size(),
                                 failures.front());
    }
    return std::make_unique<PerfThreadCounters>(layout_, std::move(leaders), std::move(all),
                                                std::move(unopened));
  }

 private:
  int OpenEvent(const EventInfo& event, int leader) const {
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = event.perf_type;
    attr.config = event.perf_config;
    attr.config1 = event.perf_config1;
    attr.read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.exclude_hv = 1;
    int fd = open_fn_(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
      // Unprivileged under perf_event_paranoid=2: count user space only.
      attr.exclude_kernel = 1;
      fd = open_fn_(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
  }

  CounterLayout layout_;
  Availability availability_;
  PerfEventOpenFn open_fn_;
};

}  // namespace

std::unique_ptr<CounterBackend> MakePerfEventBackend(CounterLayout layout,
                                                     Availability availability,
                                                     PerfEventOpenFn open_fn) {
  return std::make_unique<PerfEventBackend>(std::move(layout), std::move(availability), open_fn);
}

}  // namespace td
