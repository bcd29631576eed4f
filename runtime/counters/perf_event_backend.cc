#include "runtime/counters/perf_event_backend.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/descriptor_guard.h"
#include "runtime/counters/event_spec.h"
#include "runtime/counters/rdpmc_group.h"
#include "runtime/counters/sole_user_read.h"

namespace td {

namespace {

// Type, config and unit from the one table of perf's generic events.
EventInfo SoftwareEvent(const char* name) {
  const GenericEvent* generic = FindGenericEvent(name);
  EventInfo e;
  e.name = name;
  e.unit = generic->unit;
  e.perf_type = generic->type;
  e.perf_config = generic->config;
  return e;
}

}  // namespace

CounterLayout SoftwareLayout() {
  const auto software = &SoftwareEvent;
  // page-faults leads, not task-clock: in a task-clock-led group the kernel
  // never counts context-switches (measured: 0 across a 50 ms sleep, against
  // 1 for the same event alone or in a group led by any other software event).
  CounterLayout layout;
  layout.AddGroup({software("page-faults"), software("task-clock"), software("context-switches"),
                   software("cpu-migrations")});
  return layout;
}

// What the JSON says of a task-clock that is a group's time enabled.
const char kTimeEnabledPmu[] = "time enabled";

CounterLayout TaskClockFromHardwareGroup(const CounterLayout& layout, size_t* source) {
  if (layout.groups.empty()) return layout;
  for (size_t g = 1; g < layout.groups.size(); ++g) {
    const GroupInfo& group = layout.groups[g];
    if (group.num_events == 0 || layout.events[group.first_event].system_wide()) continue;
    bool hardware = false;
    for (size_t i = 0; i < group.num_events; ++i) hardware |= layout.events[group.first_event + i].hardware;
    if (!hardware) continue;
    EventInfo task_clock = SoftwareEvent("task-clock");
    task_clock.pmu = kTimeEnabledPmu;
    task_clock.time_of_group = static_cast<int>(g);  // group 0 is replaced, so the indices stay
    CounterLayout out;
    out.AddGroup({task_clock});
    for (size_t k = 1; k < layout.groups.size(); ++k) {
      const GroupInfo& kept = layout.groups[k];
      out.AddGroup({layout.events.begin() + static_cast<long>(kept.first_event),
                    layout.events.begin() + static_cast<long>(kept.first_event + kept.num_events)});
    }
    if (source != nullptr) *source = g;
    return out;
  }
  return layout;
}

namespace {

size_t PageBytes() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// A group whose one value is another group's time enabled: copied from that
// group's block after the reads, never opened.
struct TimeCopy {
  size_t word_offset = 0;
  size_t source_offset = 0;
};

// One opened group: read() into the snapshot, or through its mmap pages.
struct OpenedGroup {
  int leader_fd = -1;      // -1 once the program closed or reused it
  uint64_t leader_id = 0;  // the kernel's id of the leader's event
  size_t word_offset = 0;
  size_t bytes = 0;
  uint64_t members = 0;  // the block's first word
  std::unique_ptr<RdpmcGroupReader> user;  // null: read()
  // Software events only, task-clock among them: its snapshot word.
  size_t software_task_clock = SIZE_MAX;
};

class PerfThreadCounters final : public ThreadCounters {
 public:
  PerfThreadCounters(std::vector<OpenedGroup> groups, std::vector<TimeCopy> time_copies, std::vector<int> all_fds,
                     std::vector<void*> pages, void (*unmap_page)(void*), std::string unopened)
      : groups_(std::move(groups)),
        time_copies_(std::move(time_copies)),
        all_fds_(std::move(all_fds)),
        all_ids_(all_fds_.size()),
        pages_(std::move(pages)),
        unmap_page_(unmap_page),
        unopened_(std::move(unopened)) {
    offers_sole_user_read_ = DescribeSoleUserRead(&sole_user_read_);
    std::transform(all_fds_.begin(), all_fds_.end(), all_ids_.begin(), &PerfEventId);
    for (OpenedGroup& g : groups_) {
      const auto leader = std::find(all_fds_.begin(), all_fds_.end(), g.leader_fd);
      if (leader != all_fds_.end()) g.leader_id = all_ids_[static_cast<size_t>(leader - all_fds_.begin())];
    }
  }
  ~PerfThreadCounters() override {
    for (void* page : pages_) {
      if (unmap_page_ != nullptr) {
        unmap_page_(page);
      } else {
        munmap(page, PageBytes());
      }
    }
    for (size_t i = 0; i < all_fds_.size(); ++i) CloseIfStillOurs(all_fds_[i], all_ids_[i]);
  }

  // One read() per group straight into the snapshot, or rdpmc per member.
  bool Read(uint64_t* snapshot) override {
    bool ok = true;
    for (OpenedGroup& g : groups_) {
      ok &= g.user != nullptr ? g.user->Read(snapshot + g.word_offset) : ReadGroup(g, snapshot + g.word_offset);
    }
    CopyTimes(snapshot);
    return ok;
  }
  // read() gives the kernel's totals for the thread the fds were opened on,
  // whichever thread asks; rdpmc would read the asking thread's CPU.
  bool ReadFromAnotherThread(uint64_t* snapshot) override {
    bool ok = true;
    for (OpenedGroup& g : groups_) ok &= ReadGroup(g, snapshot + g.word_offset);
    CopyTimes(snapshot);
    return ok;
  }
  bool PeekFromAnotherThread(uint64_t* snapshot) const override {
    bool ok = true;
    for (const OpenedGroup& g : groups_) {
      // The owner may be giving the descriptor up right now: one word, read once.
      const int fd = __atomic_load_n(&g.leader_fd, __ATOMIC_RELAXED);
      const ssize_t got = fd >= 0 ? read(fd, snapshot + g.word_offset, g.bytes) : -1;
      ok &= got == static_cast<ssize_t>(g.bytes) && snapshot[g.word_offset] == g.members;
    }
    CopyTimes(snapshot);
    return ok;
  }
  int SoleKernelRead(size_t* bytes) const override {
    if (groups_.size() != 1 || groups_[0].user != nullptr || groups_[0].word_offset != 0 || !time_copies_.empty()) {
      return -1;
    }
    *bytes = groups_[0].bytes;
    return groups_[0].leader_fd;
  }
  size_t SoleSoftwareTaskClockWord() const override {
    size_t bytes = 0;
    return SoleKernelRead(&bytes) >= 0 ? groups_[0].software_task_clock : SIZE_MAX;
  }
  SoleUserRead* SoleUserGroup() override { return offers_sole_user_read_ ? &sole_user_read_ : nullptr; }
  bool SoleDescriptorLost(ssize_t got) override {
    return groups_.size() == 1 && groups_[0].leader_fd >= 0 && GiveUpIfLost(groups_[0], got);
  }
  std::string Lost() const override { return lost_; }
  std::string Unopened() const override { return unopened_; }
  size_t mapped_groups() const override {
    return std::count_if(groups_.begin(), groups_.end(), [](const OpenedGroup& g) { return g.user != nullptr; });
  }
  uint64_t user_reads() const override {
    uint64_t n = 0;
    for (const OpenedGroup& g : groups_) n += g.user ? g.user->user_reads() : 0;
    return n + sole_user_read_.reads;
  }
  uint64_t fallback_reads() const override {
    uint64_t n = 0;
    for (const OpenedGroup& g : groups_) n += g.user ? g.user->kernel_reads() : 0;
    return n;
  }

 private:
  // One group's read(), checked: the block must be the whole group's, its
  // count of members first. A descriptor no longer td's is never read again.
  bool ReadGroup(OpenedGroup& g, uint64_t* block) {
    const ssize_t got = read(g.leader_fd, block, g.bytes);
    if (__builtin_expect(got == static_cast<ssize_t>(g.bytes) && block[0] == g.members, 1)) return true;
    if (g.leader_fd >= 0) GiveUpIfLost(g, got);
    return false;
  }
  __attribute__((noinline, cold)) bool GiveUpIfLost(OpenedGroup& g, ssize_t got) {
    if (!DescriptorLost(g.leader_fd, g.leader_id, got)) return false;
    if (lost_.empty()) {
      lost_ = absl::StrFormat("counter descriptor %d was closed or reused by the program; this thread's counts "
                              "stopped there",
                              g.leader_fd);
    }
    g.leader_fd = -1;
    return true;
  }

  // A derived task-clock block as read() of a one-event group would give it:
  // never multiplexed (running = enabled), its value the time itself. A
  // source group that did not open leaves it 0: not measured.
  void CopyTimes(uint64_t* snapshot) const {
    for (const TimeCopy& c : time_copies_) WriteTimeCopy(snapshot + c.word_offset, snapshot[c.source_offset + 1]);
  }

  // The markers' inline read (sole_user_read.h), where Read() is one
  // ordinary group read in user space and at most a task-clock copied from
  // it, the members' counters have one width, and the instructions are the
  // real ones or fakes that answer from memory.
  bool DescribeSoleUserRead(SoleUserRead* out) const {
    if (groups_.size() != 1 || groups_[0].user == nullptr || groups_[0].user->reads_metrics()) return false;
    const RdpmcGroupReader& reader = *groups_[0].user;
    const auto& pages = reader.pages();
    if (pages.empty() || pages.size() > SoleUserRead::kMaxMembers) return false;
    if (time_copies_.size() > 1 || (time_copies_.size() == 1 && time_copies_[0].source_offset != groups_[0].word_offset)) {
      return false;
    }
    const uint16_t width = pages[0]->pmc_width;
    if (width == 0 || width > 64) return false;
    for (const volatile perf_event_mmap_page* page : pages) {
      if (page->pmc_width != width) return false;
    }
    const UserReadHooks& hooks = reader.hooks();
    const bool instructions = hooks.read_pmc == &ReadPmcInstruction && hooks.read_tsc == &ReadTscInstruction;
    const bool fakes = hooks.pmc_values != nullptr && hooks.tsc_value != nullptr;
    if (instructions ? !kUserCounterReadsBuilt : !fakes) return false;
    for (size_t i = 0; i < pages.size(); ++i) out->pages[i] = pages[i];
    out->members = static_cast<uint32_t>(pages.size());
    out->shift = 64u - width;
    out->group_word = static_cast<uint32_t>(groups_[0].word_offset);
    if (!time_copies_.empty()) out->time_copy_word = static_cast<uint32_t>(time_copies_[0].word_offset);
    if (!instructions) {
      out->fake_pmc = hooks.pmc_values;
      out->fake_pmc_count = hooks.pmc_count;
      out->fake_tsc = hooks.tsc_value;
    }
    return true;
  }

  std::vector<OpenedGroup> groups_;
  std::vector<TimeCopy> time_copies_;
  std::vector<int> all_fds_;
  std::vector<uint64_t> all_ids_;  // per descriptor, its event's id when opened
  std::string lost_;               // the first descriptor given up, said once
  std::vector<void*> pages_;
  void (*unmap_page_)(void*);
  std::string unopened_;
  SoleUserRead sole_user_read_;
  bool offers_sole_user_read_ = false;
};

class PerfEventBackend final : public CounterBackend {
 public:
  PerfEventBackend(CounterLayout layout, Availability availability, PerfEventOpenFn open_fn,
                   UserReads user_reads, UserReadSeams seams)
      : layout_(std::move(layout)),
        availability_(std::move(availability)),
        open_fn_(open_fn),
        user_reads_(user_reads),
        seams_(seams) {}

  std::string_view name() const override { return "perf_event"; }
  const CounterLayout& layout() const override { return layout_; }
  const Availability& availability() const override { return availability_; }

  // A group that cannot be opened is left out on this thread (and said so);
  // the others still count. Only when none opens is the thread unmeasured.
  absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() override {
    std::vector<OpenedGroup> opened;
    std::vector<int> all;
    std::vector<void*> pages;
    std::vector<std::string> failures;
    std::vector<TimeCopy> time_copies;
    std::vector<bool> group_opened(layout_.groups.size(), false);
    // Socket-wide groups count once per process: the first thread opens them.
    pid_t expected = claimed_by_.load();
    const bool opens_system_wide = expected != getpid() && claimed_by_.compare_exchange_strong(expected, getpid());
    for (const GroupInfo& group : layout_.groups) {
      const bool system_wide = group.num_events > 0 && layout_.events[group.first_event].system_wide();
      if (system_wide && !opens_system_wide) continue;  // stays 0 on this thread: not measured here
      if (group.num_events == 1 && layout_.events[group.first_event].time_of_group >= 0) {
        time_copies.push_back({group.word_offset, static_cast<size_t>(layout_.events[group.first_event].time_of_group)});
        continue;  // its source is resolved once the groups are open
      }
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
        continue;
      }
      if (fds.empty()) continue;
      OpenedGroup g;
      g.leader_fd = fds.front();
      g.word_offset = group.word_offset;
      g.bytes = (CounterLayout::kHeaderWords + group.num_events) * sizeof(uint64_t);
      g.members = group.num_events;
      g.software_task_clock = SoftwareTaskClockWord(group);
      if (WantsUserReads(group)) g.user = MapForUserReads(group, fds, &pages);
      opened.push_back(std::move(g));
      all.insert(all.end(), fds.begin(), fds.end());
      group_opened[static_cast<size_t>(&group - layout_.groups.data())] = true;
    }
    ResolveTimeSources(group_opened, &time_copies);
    if (all.empty() && !failures.empty()) return absl::UnavailableError(failures.front());
    std::string unopened;
    if (!failures.empty()) {
      unopened = absl::StrFormat("%d of %d groups not opened: %s", failures.size(), layout_.groups.size(),
                                 failures.front());
    }
    return std::make_unique<PerfThreadCounters>(std::move(opened), std::move(time_copies), std::move(all),
                                                std::move(pages), seams_.unmap_page, std::move(unopened));
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
    if (event.system_wide()) {
      // Memory controllers count the socket; they take no privilege filters.
      return MoveAboveProgramDescriptors(open_fn_(&attr, -1, event.cpu, leader, PERF_FLAG_FD_CLOEXEC));
    }
    attr.exclude_hv = 1;
    int fd = open_fn_(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
      // Unprivileged under perf_event_paranoid=2: count user space only.
      attr.exclude_kernel = 1;
      fd = open_fn_(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
    }
    return MoveAboveProgramDescriptors(fd);
  }

  // Each derived task-clock copies its named group's time enabled; where that
  // group did not open on this thread, another per-thread hardware group's
  // (the thread ran the same while any of them counted). None: left out, so
  // task-clock reads as not measured on this thread.
  void ResolveTimeSources(const std::vector<bool>& group_opened, std::vector<TimeCopy>* copies) const {
    std::vector<TimeCopy> resolved;
    for (const TimeCopy& copy : *copies) {
      size_t source = copy.source_offset;  // still the group index here
      if (source >= layout_.groups.size() || !group_opened[source]) {
        source = layout_.groups.size();
        for (size_t g = 0; g < layout_.groups.size() && source == layout_.groups.size(); ++g) {
          const GroupInfo& group = layout_.groups[g];
          if (!group_opened[g] || layout_.events[group.first_event].system_wide()) continue;
          for (size_t i = 0; i < group.num_events; ++i) {
            if (layout_.events[group.first_event + i].hardware) source = g;
          }
        }
      }
      if (source < layout_.groups.size()) resolved.push_back({copy.word_offset, layout_.groups[source].word_offset});
    }
    *copies = std::move(resolved);
  }

  size_t SoftwareTaskClockWord(const GroupInfo& group) const {
    size_t word = SIZE_MAX;
    for (size_t i = 0; i < group.num_events; ++i) {
      const EventInfo& event = layout_.events[group.first_event + i];
      if (event.perf_type != PERF_TYPE_SOFTWARE || event.system_wide()) return SIZE_MAX;
      if (event.perf_config == PERF_COUNT_SW_TASK_CLOCK) word = group.word_offset + CounterLayout::kHeaderWords + i;
    }
    return word;
  }

  bool WantsUserReads(const GroupInfo& group) const {
    if (layout_.events[group.first_event].system_wide()) return false;  // uncore: no user reads
    if (user_reads_ == UserReads::kAlways) return true;
    if (user_reads_ == UserReads::kOff || !kUserCounterReadsBuilt) return false;
    for (size_t i = 0; i < group.num_events; ++i) {
      if (layout_.events[group.first_event + i].hardware) return true;
    }
    return false;  // software events have no user-readable counter
  }

  // Maps each member's page; null (read() the group) when a map fails.
  std::unique_ptr<RdpmcGroupReader> MapForUserReads(const GroupInfo& group, const std::vector<int>& fds,
                                                    std::vector<void*>* all_pages) const {
    std::vector<void*> mapped;
    for (int fd : fds) {
      void* page = seams_.map_page != nullptr ? seams_.map_page(fd)
                                              : mmap(nullptr, PageBytes(), PROT_READ, MAP_SHARED, fd, 0);
      if (page == MAP_FAILED) {
        for (void* p : mapped) {
          if (seams_.unmap_page != nullptr) {
            seams_.unmap_page(p);
          } else {
            munmap(p, PageBytes());
          }
        }
        return nullptr;
      }
      mapped.push_back(page);
    }
    std::vector<const volatile perf_event_mmap_page*> pages;
    std::vector<int> fields;
    for (size_t i = 0; i < mapped.size(); ++i) {
      pages.push_back(static_cast<const volatile perf_event_mmap_page*>(mapped[i]));
      fields.push_back(PerfMetricsField(layout_.events[group.first_event + i]));
    }
    all_pages->insert(all_pages->end(), mapped.begin(), mapped.end());
    return std::make_unique<RdpmcGroupReader>(std::move(pages), std::move(fields), fds.front(), seams_.hooks);
  }

  CounterLayout layout_;
  Availability availability_;
  PerfEventOpenFn open_fn_;
  UserReads user_reads_;
  UserReadSeams seams_;
  std::atomic<pid_t> claimed_by_{0};  // process whose first thread opened the socket-wide groups
};

}  // namespace

std::unique_ptr<CounterBackend> MakePerfEventBackend(CounterLayout layout,
                                                     Availability availability,
                                                     PerfEventOpenFn open_fn,
                                                     UserReads user_reads,
                                                     UserReadSeams seams) {
  return std::make_unique<PerfEventBackend>(std::move(layout), std::move(availability), open_fn, user_reads,
                                            seams);
}

}  // namespace td
