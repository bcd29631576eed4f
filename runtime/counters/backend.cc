#include "runtime/counters/backend.h"

#include "absl/status/status.h"

namespace td {

size_t CounterLayout::AddGroup(std::vector<EventInfo> group_events) {
  GroupInfo group;
  group.word_offset = words;
  group.first_event = events.size();
  group.num_events = group_events.size();
  for (auto& event : group_events) events.push_back(std::move(event));
  groups.push_back(group);
  words += kHeaderWords + group.num_events;
  return groups.size() - 1;
}

size_t CounterLayout::GroupOf(size_t event_index) const {
  for (size_t g = 0; g < groups.size(); ++g) {
    if (event_index >= groups[g].first_event && event_index < groups[g].first_event + groups[g].num_events) {
      return g;
    }
  }
  return groups.size();
}

namespace {

class NullBackend final : public CounterBackend {
 public:
  explicit NullBackend(Availability availability) : availability_(std::move(availability)) {}
  std::string_view name() const override { return "none"; }
  const CounterLayout& layout() const override { return layout_; }
  const Availability& availability() const override { return availability_; }
  absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() override {
    return absl::UnavailableError("the 'none' backend has no counters");
  }

 private:
  CounterLayout layout_;
  Availability availability_;
};

}  // namespace

std::unique_ptr<CounterBackend> MakeNullBackend(Availability availability) {
  return std::make_unique<NullBackend>(std::move(availability));
}

}  // namespace td
