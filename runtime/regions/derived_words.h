// Words of a node's inclusive values that the markers' common forms leave
// unwritten, because another word already holds their value; they are taken
// from that word whenever the values are read (ThreadState::InclusiveWord).
// Every other path writes the same value there, so which path recorded a
// call does not matter.
#ifndef TD_RUNTIME_REGIONS_DERIVED_WORDS_H_
#define TD_RUNTIME_REGIONS_DERIVED_WORDS_H_

#include <cstddef>
#include <cstdint>

namespace td {

// The snapshot of the software group td reads without a PMU (task-clock,
// page faults, context switches, CPU migrations): a group's three header
// words and four counts. The syscall form has an END made for it.
inline constexpr size_t kSoftwareGroupWords = 3 + 4;

struct DerivedWords {
  // A task-clock that is a hardware group's time enabled (SoleUserRead's
  // time copy): the user-read forms made for a group size leave its block's
  // three words after `time_copy_word` to the group's time enabled.
  size_t time_copy_word = SIZE_MAX;
  size_t time_copy_source = 0;
  // A sole software group with task-clock (ThreadCounters::SoleSoftwareTaskClockWord):
  // such a group is never multiplexed, so its time enabled and time running
  // (words 1 and 2) are the thread's time on a CPU, which is its task-clock
  // word; the syscall form adds only the counts. 2 when so, else 0.
  size_t group_times = 0;
  size_t group_time_source = 0;

  uint64_t Word(const uint64_t* raw, size_t i) const {
    if (i - 1 < group_times) return raw[group_time_source];
    return i > time_copy_word && i <= time_copy_word + 3 ? raw[time_copy_source] : raw[i];
  }
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_DERIVED_WORDS_H_
