#include "runtime/counters/rdpmc_group.h"

#include <unistd.h>

#include <cmath>

namespace td {

int PerfMetricsField(const EventInfo& event) {
  // td's table encodes the topdown pseudo events as event 0x00, umask 0x80 + field.
  if (!event.hardware || event.perf_type == PERF_TYPE_SOFTWARE) return -1;
  if ((event.perf_config & 0xff) != 0 || (event.perf_config >> 16) != 0) return -1;
  const uint64_t umask = (event.perf_config >> 8) & 0xff;
  return umask >= 0x80 && umask <= 0x87 ? static_cast<int>(umask - 0x80) : -1;
}

RdpmcGroupReader::RdpmcGroupReader(std::vector<const volatile perf_event_mmap_page*> pages,
                                   std::vector<int> metric_fields, int leader_fd, UserReadHooks hooks)
    : pages_(std::move(pages)),
      metric_fields_(std::move(metric_fields)),
      leader_fd_(leader_fd),
      hooks_(hooks),
      base_(pages_.size(), 0) {
  for (size_t i = 0; i < metric_fields_.size(); ++i) {
    if (metric_fields_[i] >= 0) {
      first_metric_ = static_cast<int>(i);
      break;
    }
  }
}

bool RdpmcGroupReader::Read(uint64_t* block) {
  return first_metric_ < 0 ? ReadOrdinary(block) : ReadMetrics(block);
}

bool RdpmcGroupReader::ReadKernel(uint64_t* block) {
  const size_t bytes = (CounterLayout::kHeaderWords + pages_.size()) * sizeof(uint64_t);
  const ssize_t got = hooks_.read_fd != nullptr ? hooks_.read_fd(leader_fd_, block, bytes)
                                                : read(leader_fd_, block, bytes);
  ++kernel_reads_;
  return got == static_cast<ssize_t>(bytes);
}

// The markers' case: every page allows a user read and none changes while it
// is read. Locals, because the calls through the hooks could otherwise be
// assumed to change the members.
bool RdpmcGroupReader::ReadOrdinary(uint64_t* block) {
  const volatile perf_event_mmap_page* const* pages = pages_.data();
  const size_t members = pages_.size();
  const ReadPmcFn read_pmc = hooks_.read_pmc;
  uint64_t* values = block + CounterLayout::kHeaderWords;
  uint64_t enabled = 0;
  uint64_t running = 0;
  if (__builtin_expect(!TryReadCountAndTimes(pages[0], read_pmc, hooks_.read_tsc, &values[0], &enabled, &running),
                       0)) {
    return ReadOrdinaryWithRetries(block);
  }
  for (size_t i = 1; i < members; ++i) {
    if (__builtin_expect(!TryReadCount(pages[i], read_pmc, &values[i]), 0)) return ReadOrdinaryWithRetries(block);
  }
  block[0] = members;
  block[1] = enabled;
  block[2] = running;
  ++user_reads_;
  return true;
}

// Retries each page while the kernel updates it, and read()s the group when
// a page forbids a user read.
bool RdpmcGroupReader::ReadOrdinaryWithRetries(uint64_t* block) {
  RdpmcSample leader;
  if (!ReadWithRdpmcNow(pages_[0], hooks_.read_pmc, hooks_.read_tsc, &leader)) return ReadKernel(block);
  uint64_t* values = block + CounterLayout::kHeaderWords;
  values[0] = leader.count;
  for (size_t i = 1; i < pages_.size(); ++i) {
    RdpmcSample member;
    if (!ReadWithRdpmc(pages_[i], hooks_.read_pmc, &member)) return ReadKernel(block);
    values[i] = member.count;
  }
  return FinishUserRead(leader, block);
}

// The block's header as read() writes it: nr, then the leader's times.
bool RdpmcGroupReader::FinishUserRead(const RdpmcSample& leader, uint64_t* block) {
  block[0] = pages_.size();
  block[1] = leader.time_enabled;
  block[2] = leader.time_running;
  ++user_reads_;
  return true;
}

bool RdpmcGroupReader::Rebase(uint64_t* block) {
  if (!ReadKernel(block)) return false;
  for (size_t i = 0; i < pages_.size(); ++i) base_[i] = block[CounterLayout::kHeaderWords + i];
  base_stamp_ = pages_[0]->time_enabled;
  based_ = true;
  return true;
}

bool RdpmcGroupReader::ReadMetrics(uint64_t* block) {
  RdpmcSample slots;
  if (!based_ || !ReadWithRdpmcNow(pages_[0], hooks_.read_pmc, hooks_.read_tsc, &slots) ||
      slots.page_stamp != base_stamp_ || slots.raw < 0 || slots.raw > kMetricsRebaseSlots) {
    return Rebase(block);
  }
  uint64_t metrics = 0;
  if (!ReadRegisterWithRdpmc(pages_[first_metric_], hooks_.read_pmc, &metrics)) return Rebase(block);
  uint64_t* values = block + CounterLayout::kHeaderWords;
  for (size_t i = 0; i < pages_.size(); ++i) {
    if (i == 0) {
      values[0] = base_[0] + static_cast<uint64_t>(slots.raw);
    } else if (metric_fields_[i] >= 0) {
      values[i] = base_[i] + static_cast<uint64_t>(std::llround(
                                 MetricSlots(metrics, static_cast<uint64_t>(slots.raw), metric_fields_[i])));
    } else {
      // An ordinary counter beside the metrics: read() did not reset it.
      RdpmcSample member;
      if (!ReadWithRdpmc(pages_[i], hooks_.read_pmc, &member)) return Rebase(block);
      values[i] = member.count;
    }
  }
  return FinishUserRead(slots, block);
}

}  // namespace td
